package io.syncmirror.protocol;

import org.apache.kafka.common.protocol.Errors;

/**
 * The error codes the sync ack path answers with, and the new codes of the cluster mirroring protocols, each
 * with its wire code, retriability and meaning; and the one lookup of any code's name and default message, Kafka's
 * or ours, for the tools and the broker. Immutable.
 *
 * <p>Codes that Kafka already defines keep Kafka's numbers. The new codes take numbers above Kafka 4.4's
 * highest code (136), in the order the sync mirroring text introduces them; a test checks that none of them
 * collides with a code kafka-clients knows.
 */
public enum MirrorError
{
    NONE((short)0, false, "No error."),
    NOT_LEADER_OR_FOLLOWER((short)6, true,
        "This broker is no longer the leader of the partition."),
    REQUEST_TIMED_OUT((short)7, true,
        "The local ISR did not reach the produced offset before the request timed out."),
    NOT_ENOUGH_REPLICAS((short)19, true,
        "Messages are rejected since there are fewer in-sync replicas than required."),
    NOT_ENOUGH_REPLICAS_AFTER_APPEND((short)20, true,
        "Messages are written to the log, but to fewer in-sync replicas than required."),

    MIRROR_SYNC_REPLICATION_TIMEOUT((short)137, true,
        "A sync mirror's ISR did not reach the produced offset before the request timed out."),
    NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND((short)138, true,
        "Messages are written to the log, but a sync mirror reports fewer in-sync replicas than its MinISR."),
    INVALID_SYNC_REGISTRATION((short)139, false,
        "The mirror is not registered for sync replication of this partition."),
    MIRROR_REGISTRATION_PROPAGATING((short)140, true,
        "The sync registration has not reached this partition leader's metadata yet."),
    MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION((short)141, false,
        "The source released this mirror; only a recovery promotion may register it again."),
    MIRROR_SYNC_VERSION_MISMATCH((short)142, false,
        "The source cluster cannot gate produces on this mirror (mirror.sync.version is not enabled).");

    /** Produce versions below this one do not know the sync mirroring error codes. */
    public static final short FIRST_PRODUCE_VERSION_WITH_SYNC_ERRORS = 14;

    private static final MirrorError[] BY_CODE;

    static
    {
        int max = 0;
        for (final MirrorError error : values())
        {
            max = Math.max(max, error.code);
        }
        BY_CODE = new MirrorError[max + 1];
        for (final MirrorError error : values())
        {
            BY_CODE[error.code] = error;
        }
    }

    private final short code;
    private final boolean retriable;
    private final String message;

    MirrorError(final short code, final boolean retriable, final String message)
    {
        this.code = code;
        this.retriable = retriable;
        this.message = message;
    }

    /** The code on the wire. */
    public short code()
    {
        return code;
    }

    public boolean retriable()
    {
        return retriable;
    }

    /** The default message; sync errors name their mirror with {@link #message(String)}. */
    public String message()
    {
        return message;
    }

    /** The message naming the mirror that caused it, for the per-partition error message of a response. */
    public String message(final String mirrorName)
    {
        return mirrorName == null ? message : message + " Mirror: " + mirrorName + '.';
    }

    /**
     * Kafka's errors by code, loaded on first use only: the hot path (hwgate) uses this enum without kafka-clients
     * on its class path. Errors.forCode would log a warning for each of our codes.
     */
    private static final class KafkaErrors
    {
        static final java.util.Map<Short, Errors> BY_CODE = new java.util.HashMap<>();

        static
        {
            for (final Errors error : Errors.values())
            {
                BY_CODE.put(error.code(), error);
            }
        }
    }

    /** Kafka's error with wire code {@code code}, or null (Errors.forCode would log a warning for ours). */
    public static Errors kafkaError(final int code)
    {
        return code >= Short.MIN_VALUE && code <= Short.MAX_VALUE ? KafkaErrors.BY_CODE.get((short)code) : null;
    }

    /** The name of an error code, Kafka's or a mirroring one, or {@code ERROR_<code>} when neither defines it. */
    public static String nameOf(final short code)
    {
        final Errors kafka = KafkaErrors.BY_CODE.get(code);
        if (kafka != null)
        {
            return kafka.name();
        }
        final MirrorError mirror = forCode(code);
        return mirror != null ? mirror.name() : "ERROR_" + code;
    }

    /** {@code NAME: message}, with the code's default message when {@code message} is empty. */
    public static String describe(final short code, final String message)
    {
        String text = message;
        if (text == null || text.isEmpty())
        {
            final Errors kafka = KafkaErrors.BY_CODE.get(code);
            final MirrorError mirror = forCode(code);
            text = kafka != null ? kafka.message() : mirror != null ? mirror.message() : null;
        }
        return text == null || text.isEmpty() ? nameOf(code) : nameOf(code) + ": " + text;
    }

    /** The error with wire code {@code code}, or null when this enum does not define it. */
    public static MirrorError forCode(final int code)
    {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /**
     * The Produce &lt; v14 down-map: a producer that negotiated a version older than v14 does not know
     * MIRROR_SYNC_REPLICATION_TIMEOUT or NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND and would treat them as a fatal
     * unknown error, so both become the retriable NOT_ENOUGH_REPLICAS_AFTER_APPEND. Every other code, and both
     * codes at v14 and above, pass unchanged. Applied to each partition's code before a response is serialized.
     */
    public static short maybeDownConvertSyncMirrorError(final short errorCode, final short produceVersion)
    {
        if (produceVersion < FIRST_PRODUCE_VERSION_WITH_SYNC_ERRORS &&
            (errorCode == MIRROR_SYNC_REPLICATION_TIMEOUT.code ||
            errorCode == NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND.code))
        {
            return NOT_ENOUGH_REPLICAS_AFTER_APPEND.code;
        }
        return errorCode;
    }
}
