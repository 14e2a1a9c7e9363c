package io.syncmirror.broker.mirror;

import java.util.Arrays;

import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.syncmirror.protocol.MirrorPartitionState;

class MirrorStateRecordTest
{
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    @Test
    void shouldReadBackEveryFieldItWrote()
    {
        final MirrorStateRecord record = new MirrorStateRecord("dr", TOPIC_ID, 7, "orders",
            MirrorPartitionState.FAILED, MirrorPartitionState.STOPPING, 3, (byte)1, 1234L, 5, 1236L, (short)41,
            "the source is unreachable", false);
        assertEquals(record, MirrorStateRecord.parse(record.key(), record.value()));
        final MirrorStateRecord noMessage = MirrorStateRecord.unknown("dr", TOPIC_ID, 0, "orders");
        assertEquals(noMessage, MirrorStateRecord.parse(noMessage.key(), noMessage.value()));
        final MirrorStateRecord owed = record.withSyncRegistrationOwed(true);
        assertEquals(owed, MirrorStateRecord.parse(owed.key(), owed.value()));
        assertEquals(record.value().length + 1, owed.value().length, "version 1 adds one byte");
        assertEquals(0, record.value()[1], "without the obligation a record is still written as version 0");
    }

    @Test
    void shouldKeyByMirrorTopicIdAndPartitionOnly()
    {
        final MirrorStateRecord a = MirrorStateRecord.unknown("dr", TOPIC_ID, 0, "orders");
        assertEquals(Arrays.toString(a.key()), Arrays.toString(a.moveTo(MirrorPartitionState.PREPARING).key()));
        assertFalse(Arrays.equals(a.key(), MirrorStateRecord.unknown("dr", TOPIC_ID, 1, "orders").key()));
        assertFalse(Arrays.equals(a.key(), MirrorStateRecord.unknown("other", TOPIC_ID, 0, "orders").key()));
    }

    @Test
    void shouldRejectATruncatedOrUnknownRecord()
    {
        final MirrorStateRecord record = MirrorStateRecord.unknown("dr", TOPIC_ID, 0, "orders");
        final byte[] value = record.value();
        assertThrows(IllegalArgumentException.class,
            () -> MirrorStateRecord.parse(record.key(), Arrays.copyOf(value, value.length - 3)));
        final byte[] newer = value.clone();
        newer[1] = 9; // version 9
        assertThrows(IllegalArgumentException.class, () -> MirrorStateRecord.parse(record.key(), newer));
        final byte[] badState = value.clone();
        badState[2 + 2 + "orders".length() + 4] = 42;
        assertThrows(IllegalArgumentException.class, () -> MirrorStateRecord.parse(record.key(), badState));
    }

    @Test
    void shouldKeepTheRetryCountThroughRetriesAndResetItWhenSettled()
    {
        final MirrorStateRecord failed = MirrorStateRecord.unknown("dr", TOPIC_ID, 0, "orders")
            .moveTo(MirrorPartitionState.PREPARING).failed((short)7, "timeout", 2);
        assertEquals(2, failed.moveTo(MirrorPartitionState.PREPARING).retryAttempt());
        assertEquals(0, failed.moveTo(MirrorPartitionState.PREPARING).moveTo(MirrorPartitionState.MIRRORING)
            .retryAttempt());
        assertEquals(0, failed.moveTo(MirrorPartitionState.STOPPING).moveTo(MirrorPartitionState.STOPPED)
            .retryAttempt());
    }
}
