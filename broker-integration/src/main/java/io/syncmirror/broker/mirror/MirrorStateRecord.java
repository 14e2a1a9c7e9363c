package io.syncmirror.broker.mirror;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.Uuid;

import io.syncmirror.protocol.MirrorPartitionState;

/**
 * One mirror partition's record in the compacted {@code __mirror_state} topic: the key names the partition, the
 * value is its coordinator state. Immutable.
 *
 * <p>The key follows KIP-1279's composite key (mirror name, topic id, partition), so compaction keeps the latest
 * state of each mirror partition and the default partitioner spreads them over the topic's partitions. The value
 * carries the spec's MirrorPartitionStateValue fields (TopicName, Partition, State, PreviousState, RetryAttempt,
 * and the sync text's DesiredMirrorType) plus what a failover records for a later failback and for a crash in the
 * middle of it: LastMirroredOffset (the LEO when the fetcher stopped), LastMirrorEpoch (the latest source epoch
 * in the log), the MIRROR_PID_RESET offset (where producer ids stop being mirrored ones) and the last error.
 *
 * <p>Binary form, big-endian: key = key type int16 (2), mirror name (int16 length + UTF-8), topic id (2 x int64),
 * partition int32. Value = version int16 (0), topic name, partition int32, state int8, previous state int8,
 * retry attempt int32, desired mirror type int8, last mirrored offset int64, last mirror epoch int32,
 * pid reset offset int64, error code int16, error message (int16 length, -1 for null, + UTF-8); version 1 (written
 * only when it is true) then has SyncRegistrationOwed int8. A reader rejects an unknown version with
 * IllegalArgumentException.
 */
public record MirrorStateRecord(
    String mirrorName,
    Uuid topicId,
    int partition,
    String topicName,
    MirrorPartitionState state,
    MirrorPartitionState previousState,
    int retryAttempt,
    byte desiredMirrorType,
    long lastMirroredOffset,
    int lastMirrorEpoch,
    long pidResetOffset,
    short errorCode,
    String errorMessage,
    boolean syncRegistrationOwed)
{
    /**
     * The first int16 of a key: which record it is, as the spec's coordinator-key apiKey numbers them (2:
     * MirrorPartitionState; 3: MirrorSyncRegistration, the source's registration ledger), so one topic holds both.
     */
    public static final short PARTITION_STATE_KEY_TYPE = 2;
    private static final short VERSION = 0;
    /** Version 1 adds SyncRegistrationOwed after the error message; written only when it is true. */
    private static final short OWED_VERSION = 1;

    /** A fresh record for a partition with no state yet. */
    public static MirrorStateRecord unknown(final String mirrorName, final Uuid topicId, final int partition,
        final String topicName)
    {
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, MirrorPartitionState.UNKNOWN,
            MirrorPartitionState.UNKNOWN, 0, (byte)0, -1L, -1, -1L, (short)0, null, false);
    }

    /**
     * This record moved to {@code next}, remembering the state it left; the error is cleared. The retry count
     * survives the retries themselves (FAILED -> PREPARING -> FAILED backs off longer each time) and is reset by
     * reaching a settled state, MIRRORING or STOPPED.
     */
    public MirrorStateRecord moveTo(final MirrorPartitionState next)
    {
        final boolean settled = next == MirrorPartitionState.MIRRORING || next == MirrorPartitionState.STOPPED;
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, next, state,
            settled ? 0 : retryAttempt, desiredMirrorType, lastMirroredOffset, lastMirrorEpoch, pidResetOffset,
            (short)0, null, syncRegistrationOwed);
    }

    public MirrorStateRecord failed(final short code, final String message, final int attempt)
    {
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, MirrorPartitionState.FAILED,
            state == MirrorPartitionState.FAILED ? previousState : state, attempt, desiredMirrorType,
            lastMirroredOffset, lastMirrorEpoch, pidResetOffset, code, message, syncRegistrationOwed);
    }

    public MirrorStateRecord withMirrorName(final String name)
    {
        return new MirrorStateRecord(name, topicId, partition, topicName, state, previousState, retryAttempt,
            desiredMirrorType, lastMirroredOffset, lastMirrorEpoch, pidResetOffset, errorCode, errorMessage,
            syncRegistrationOwed);
    }

    public MirrorStateRecord withStop(final long lastOffset, final int lastEpoch)
    {
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, state, previousState, retryAttempt,
            desiredMirrorType, lastOffset, lastEpoch, pidResetOffset, errorCode, errorMessage,
            syncRegistrationOwed);
    }

    public MirrorStateRecord withPidResetOffset(final long offset)
    {
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, state, previousState, retryAttempt,
            desiredMirrorType, lastMirroredOffset, lastMirrorEpoch, offset, errorCode, errorMessage,
            syncRegistrationOwed);
    }

    /** This record with the topic's desired mirror type (0 ASYNC, 1 SYNC), which an operator's alter sets. */
    public MirrorStateRecord withDesiredMirrorType(final byte type)
    {
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, state, previousState, retryAttempt,
            type, lastMirroredOffset, lastMirrorEpoch, pidResetOffset, errorCode, errorMessage,
            syncRegistrationOwed);
    }

    /**
     * This record noting whether the source may hold a sync registration of its topic that nobody has undone yet:
     * set on the topic's partition 0 (its driver's) before a Register goes out, cleared once an Unregister is
     * acknowledged. It moves with partition 0's leadership, so a new driver knows to unregister.
     */
    public MirrorStateRecord withSyncRegistrationOwed(final boolean owed)
    {
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, state, previousState, retryAttempt,
            desiredMirrorType, lastMirroredOffset, lastMirrorEpoch, pidResetOffset, errorCode, errorMessage, owed);
    }

    /**
     * This record with another retry count, state unchanged: a MIRRORING partition counts its topic's rejected
     * sync registrations here, so the backoff between them survives a move of the coordinator.
     */
    public MirrorStateRecord withRetryAttempt(final int attempt)
    {
        return new MirrorStateRecord(mirrorName, topicId, partition, topicName, state, previousState, attempt,
            desiredMirrorType, lastMirroredOffset, lastMirrorEpoch, pidResetOffset, errorCode, errorMessage,
            syncRegistrationOwed);
    }

    /** The record key: what compaction keeps one value of. */
    public byte[] key()
    {
        return key(mirrorName, topicId, partition);
    }

    public static byte[] key(final String mirrorName, final Uuid topicId, final int partition)
    {
        final byte[] name = mirrorName.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buffer = ByteBuffer.allocate(2 + 2 + name.length + 16 + 4);
        buffer.putShort(PARTITION_STATE_KEY_TYPE);
        buffer.putShort((short)name.length).put(name);
        buffer.putLong(topicId.getMostSignificantBits()).putLong(topicId.getLeastSignificantBits());
        buffer.putInt(partition);
        return buffer.array();
    }

    public byte[] value()
    {
        final byte[] topic = topicName.getBytes(StandardCharsets.UTF_8);
        final byte[] message = errorMessage == null ? null : errorMessage.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer buffer = ByteBuffer.allocate(2 + 2 + topic.length + 4 + 1 + 1 + 4 + 1 + 8 + 4 + 8 + 2 + 2 +
            (message == null ? 0 : message.length) + (syncRegistrationOwed ? 1 : 0));
        buffer.putShort(syncRegistrationOwed ? OWED_VERSION : VERSION);
        buffer.putShort((short)topic.length).put(topic);
        buffer.putInt(partition);
        buffer.put(state.id()).put(previousState.id());
        buffer.putInt(retryAttempt);
        buffer.put(desiredMirrorType);
        buffer.putLong(lastMirroredOffset).putInt(lastMirrorEpoch).putLong(pidResetOffset);
        buffer.putShort(errorCode);
        if (message == null)
        {
            buffer.putShort((short)-1);
        }
        else
        {
            buffer.putShort((short)message.length).put(message);
        }
        if (syncRegistrationOwed)
        {
            buffer.put((byte)1);
        }
        return buffer.array();
    }

    /** Reads a key and its value back; throws IllegalArgumentException for a corrupt or unknown record. */
    public static MirrorStateRecord parse(final byte[] key, final byte[] value)
    {
        try
        {
            final ByteBuffer k = ByteBuffer.wrap(key);
            final short keyType = k.getShort();
            if (keyType != PARTITION_STATE_KEY_TYPE)
            {
                throw new IllegalArgumentException("not a mirror partition state key (type " + keyType + ")");
            }
            final String mirror = string(k);
            final Uuid topicId = new Uuid(k.getLong(), k.getLong());
            final int partition = k.getInt();
            final ByteBuffer v = ByteBuffer.wrap(value);
            final short version = v.getShort();
            checkVersion(version);
            final String topic = string(v);
            v.getInt();
            final MirrorPartitionState state = MirrorPartitionState.forId(v.get());
            final MirrorPartitionState previous = MirrorPartitionState.forId(v.get());
            final int retry = v.getInt();
            final byte desired = v.get();
            final long lastOffset = v.getLong();
            final int lastEpoch = v.getInt();
            final long pidReset = v.getLong();
            final short code = v.getShort();
            final String message = string(v);
            return new MirrorStateRecord(mirror, topicId, partition, topic, state, previous, retry, desired,
                lastOffset, lastEpoch, pidReset, code, message, version >= OWED_VERSION && v.get() != 0);
        }
        catch (final java.nio.BufferUnderflowException e)
        {
            throw new IllegalArgumentException("truncated __mirror_state record", e);
        }
    }

    private static void checkVersion(final short version)
    {
        if (version != VERSION && version != OWED_VERSION)
        {
            throw new IllegalArgumentException("unknown __mirror_state record version " + version);
        }
    }

    private static String string(final ByteBuffer buffer)
    {
        final short length = buffer.getShort();
        if (length < 0)
        {
            return null;
        }
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
