-- Transport A's pump publishes the outbox in batches (docs/protocol.md, "Transport A"): a node
-- claims up to a batch of unpublished offers until publish_claim (epoch microseconds), publishes
-- them, and marks those the stream acknowledged in one transaction. Another node's pump skips a
-- claimed row until its claim passes, so two nodes do not both publish it; a node that died
-- holding claims only delays its rows until then (a republish is deduplicated by the stream).
ALTER TABLE lease_offer ADD COLUMN publish_claim BIGINT;
