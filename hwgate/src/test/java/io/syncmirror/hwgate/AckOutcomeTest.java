package io.syncmirror.hwgate;

import org.junit.jupiter.api.Test;

import io.syncmirror.protocol.MirrorError;

import static io.syncmirror.protocol.MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** An ack outcome packs the error and the mirror that caused it into one int. */
class AckOutcomeTest
{
    @Test
    void shouldPackOutcomesWithTheirMirror()
    {
        final int outcome = AckOutcome.of(NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, 31);
        assertEquals(NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND.code(), AckOutcome.errorCode(outcome));
        assertEquals(31, AckOutcome.mirror(outcome));
        assertEquals(-1, AckOutcome.mirror(AckOutcome.of(MirrorError.REQUEST_TIMED_OUT)));
        assertEquals(0, AckOutcome.errorCode(AckOutcome.SUCCESS));
        assertEquals("NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND(mirror 31)", AckOutcome.toString(outcome));
    }
}
