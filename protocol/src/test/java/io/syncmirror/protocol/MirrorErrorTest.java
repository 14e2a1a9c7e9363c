package io.syncmirror.protocol;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.syncmirror.protocol.MirrorError.MIRROR_SYNC_REPLICATION_TIMEOUT;
import static io.syncmirror.protocol.MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND;
import static io.syncmirror.protocol.MirrorError.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
import static io.syncmirror.protocol.MirrorError.maybeDownConvertSyncMirrorError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;


class MirrorErrorTest
{
    @Test
    void shouldKeepKafkasNumbersForKafkasErrorsAndTakeFreshOnesAboveKafkasHighest()
    {
        short kafkaMax = 0;
        for (final Errors error : Errors.values())
        {
            kafkaMax = (short)Math.max(kafkaMax, error.code());
        }
        assertEquals(136, kafkaMax, "kafka-clients 4.4's highest error code");
        for (final MirrorError error : MirrorError.values())
        {
            final Errors kafka = Errors.forCode(error.code());
            if (error.code() <= kafkaMax)
            {
                assertEquals(error.name(), kafka.name(), "code " + error.code() + " must mean what it means in Kafka");
            }
            else
            {
                assertSame(Errors.UNKNOWN_SERVER_ERROR, kafka, error + " collides with a Kafka code");
            }
        }
    }

    @Test
    void shouldMarkTheTwoProduceErrorsRetriableAsNotEnoughReplicasAfterAppendIs()
    {
        assertTrue(MIRROR_SYNC_REPLICATION_TIMEOUT.retriable());
        assertTrue(NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND.retriable());
        assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.exception().getClass().getSuperclass().getSimpleName(),
            "RetriableException");
    }

    @Test
    void shouldLookUpByCode()
    {
        for (final MirrorError error : MirrorError.values())
        {
            assertSame(error, MirrorError.forCode(error.code()));
        }
        assertNull(MirrorError.forCode(1));
        assertNull(MirrorError.forCode(-1));
        assertNull(MirrorError.forCode(10_000));
    }

    @Test
    @DisplayName("SU-14 below Produce v14 both sync errors become NOT_ENOUGH_REPLICAS_AFTER_APPEND; v14+ and other codes pass")
    void shouldDownConvertSyncMirrorErrorsForOldProduceVersions()
    {
        final short timeout = MIRROR_SYNC_REPLICATION_TIMEOUT.code();
        final short remote = NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND.code();
        final short afterAppend = NOT_ENOUGH_REPLICAS_AFTER_APPEND.code();
        for (short version = 0; version <= 16; version++)
        {
            final boolean old = version < 14;
            assertEquals(old ? afterAppend : timeout, maybeDownConvertSyncMirrorError(timeout, version), "v" + version);
            assertEquals(old ? afterAppend : remote, maybeDownConvertSyncMirrorError(remote, version), "v" + version);
            for (final Errors other : Errors.values())
            {
                assertEquals(other.code(), maybeDownConvertSyncMirrorError(other.code(), version),
                    other + " at v" + version + " must pass unchanged");
            }
            for (final MirrorError other : MirrorError.values())
            {
                if (other != MIRROR_SYNC_REPLICATION_TIMEOUT && other != NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND)
                {
                    assertEquals(other.code(), maybeDownConvertSyncMirrorError(other.code(), version));
                }
            }
        }
    }

    @Test
    void shouldNameTheMirrorInTheMessage()
    {
        assertTrue(MIRROR_SYNC_REPLICATION_TIMEOUT.message("dr-west").contains("dr-west"));
        assertEquals(MIRROR_SYNC_REPLICATION_TIMEOUT.message(), MIRROR_SYNC_REPLICATION_TIMEOUT.message(null));
    }

    @Test
    void shouldNameEveryCodeKafkasAndOursAndEveryPartitionState()
    {
        assertEquals("NOT_CONTROLLER", MirrorError.nameOf(Errors.NOT_CONTROLLER.code()));
        assertEquals("MIRROR_SYNC_VERSION_MISMATCH", MirrorError.nameOf((short)142));
        assertEquals("ERROR_999", MirrorError.nameOf((short)999));
        assertEquals("INVALID_SYNC_REGISTRATION: " + MirrorError.INVALID_SYNC_REGISTRATION.message(),
            MirrorError.describe(MirrorError.INVALID_SYNC_REGISTRATION.code(), null));
        assertEquals("REQUEST_TIMED_OUT: slow", MirrorError.describe(Errors.REQUEST_TIMED_OUT.code(), "slow"));
        assertSame(Errors.NOT_CONTROLLER, MirrorError.kafkaError(Errors.NOT_CONTROLLER.code()));
        assertNull(MirrorError.kafkaError(142));
        assertEquals("FAILED", MirrorPartitionState.nameOf(5));
        assertEquals("STATE_9", MirrorPartitionState.nameOf(9));
    }
}
