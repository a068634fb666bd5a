package dev.baton.router;

import dev.baton.router.policy.FirstCome;
import dev.baton.router.testing.Fleet;
import dev.baton.router.testing.RawRunner;

/** The cases against a router in front of the server: the same answers, one each. */
class RunnerChannelCasesRouterTest extends RunnerChannelCases {
    @Override
    RawRunner connect() {
        Router router = fleet.router(new FirstCome(), RouterSettings.defaults("router"), new RouterProtocolTest.HandClock());
        return new RawRunner(Fleet.url(router), "r1", fleet.runnerKey("r1").reveal());
    }
}
