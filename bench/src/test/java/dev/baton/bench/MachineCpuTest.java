package dev.baton.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class MachineCpuTest {

    @Test
    void busyTicksCountEverythingButIdleAndIowaitAndNotGuestTwice() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        assertEquals(1 + 2 + 3 + 6 + 7 + 8, MachineCpu.busyTicks("cpu  1 2 3 4000 5000 6 7 8 9 10"));
    }

    @Test
    void olderKernelsWithFewerFieldsAreRead() {
        assertEquals(10 + 20 + 30, MachineCpu.busyTicks("cpu 10 20 30 40"));
    }

    @Test
    void aPerCoreLineIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> MachineCpu.busyTicks("cpu0 1 2 3 4 5 6 7 8 9 10"));
    }

    @Test
    void theMachineHasSpentSomeCpuSinceBootAndTheCountGrows() {
        long first = MachineCpu.busyNanos();
        assertTrue(first > 0, "read /proc/stat: " + first);
        assertTrue(MachineCpu.busyNanos() >= first);
    }

    @Test
    void perJobCostIsTheMachinesCoresOverTheRate() {
        ResourceUse u = new ResourceUse(1.0, 2.0, 0, 0, "0 0 0");
        assertEquals(2.0, u.machineMillisPerJob(1000));
        assertEquals(-1, new ResourceUse(1.0, -1, 0, 0, "?").machineMillisPerJob(1000));
    }
}
