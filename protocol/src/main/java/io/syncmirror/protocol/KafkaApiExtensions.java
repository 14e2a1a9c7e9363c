package io.syncmirror.protocol;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Objects;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * The Kafka API versions that sync cluster mirroring adds beyond kafka-clients 4.4: Fetch 19 and 20 and Produce 14,
 * and the request and response bodies of every version of those two APIs. Stateless and thread-safe.
 *
 * <p>Only the Fetch v20 request differs from an older layout (it carries {@link MirrorReplicaInfo}; see
 * {@link FetchRequestCodec}). Fetch v19 and the Fetch v19/v20 responses have the version 18 layout; Produce v14's
 * request and response have the version 13 layout, the bump existing only to gate two new per-partition error
 * codes. So every body here is kafka-clients' own data class read or written at its layout version. Request
 * headers are version 2 and response headers version 1 at all of these versions, as at Fetch 18 and Produce 13.
 *
 * <p>Reads fail with {@link InvalidRequestException} on truncated, malformed or trailing bytes, and with
 * {@link UnsupportedVersionException} on a version this class does not know.
 */
public final class KafkaApiExtensions
{
    /** The layout of Produce v14. */
    public static final short PRODUCE_LAYOUT_VERSION = 13;

    /** The first and highest Produce version beyond kafka-clients 4.4. */
    public static final short PRODUCE_LATEST_VERSION = 14;

    private KafkaApiExtensions()
    {
    }

    /** The highest version of {@code key} this project can read and write: beyond kafka-clients' for Fetch and Produce. */
    public static short latestVersion(final ApiKeys key)
    {
        return switch (key)
        {
            case FETCH -> FetchRequestCodec.LATEST_VERSION;
            case PRODUCE -> PRODUCE_LATEST_VERSION;
            default -> key.latestVersion();
        };
    }

    /** Whether {@code version} of {@code key} is above kafka-clients' highest and one this class reads and writes. */
    public static boolean isBeyondKafka(final ApiKeys key, final short version)
    {
        return version > key.latestVersion() && version <= latestVersion(key);
    }

    /**
     * The kafka-clients version whose layout {@code version} of {@code key} has, for requests and responses alike
     * (for Fetch v20 requests, apart from MirrorReplicaInfo); {@code version} itself when kafka-clients knows it.
     */
    public static short layoutVersion(final ApiKeys key, final short version)
    {
        return (short)Math.min(version, key.latestVersion());
    }

    /**
     * Reads a Produce request body at {@code version} (up to 14) from {@code body}'s position to its limit. The
     * records are a view of {@code body}, as kafka-clients' parser leaves them.
     *
     * @throws UnsupportedVersionException if the version is not one this class knows
     * @throws InvalidRequestException     if the body is truncated, malformed or followed by extra bytes
     */
    public static ProduceRequestData parseProduceRequest(final ByteBuffer body, final short version)
    {
        checkVersion(ApiKeys.PRODUCE, version);
        return (ProduceRequestData)readExactly(new ProduceRequestData(), ApiKeys.PRODUCE, version, body, "request");
    }

    /** Writes a Produce request body at {@code version} (up to 14) into a new heap buffer positioned at 0. */
    public static ByteBuffer serializeProduceRequest(final ProduceRequestData data, final short version)
    {
        checkVersion(ApiKeys.PRODUCE, version);
        return write(data, layoutVersion(ApiKeys.PRODUCE, version));
    }

    /**
     * Writes the response body of {@code key} at {@code version} (Fetch up to 20, Produce up to 14, any other API
     * up to kafka-clients' highest) in its layout, into a new heap buffer positioned at 0.
     */
    public static ByteBuffer serializeResponse(final ApiKeys key, final short version, final ApiMessage data)
    {
        checkVersion(key, version);
        if (data.apiKey() != key.id)
        {
            throw new IllegalArgumentException(key + " response cannot be written from data of api key "
                + data.apiKey());
        }
        return write(data, layoutVersion(key, version));
    }

    /** Reads a Fetch response body at {@code version} (up to 20). */
    public static FetchResponseData parseFetchResponse(final ByteBuffer body, final short version)
    {
        checkVersion(ApiKeys.FETCH, version);
        return (FetchResponseData)readExactly(new FetchResponseData(), ApiKeys.FETCH, version, body, "response");
    }

    /** Reads a Produce response body at {@code version} (up to 14). */
    public static ProduceResponseData parseProduceResponse(final ByteBuffer body, final short version)
    {
        checkVersion(ApiKeys.PRODUCE, version);
        return (ProduceResponseData)readExactly(new ProduceResponseData(), ApiKeys.PRODUCE, version, body,
            "response");
    }

    /** Reads a Fetch request body at {@code version}; see {@link FetchRequestCodec#parse}. */
    public static FetchRequestCodec.DecodedFetchRequest parseFetchRequest(final ByteBuffer body, final short version)
    {
        return FetchRequestCodec.parse(body, version);
    }

    /** Writes a Fetch request body at {@code version}; see {@link FetchRequestCodec#serialize}. */
    public static ByteBuffer serializeFetchRequest(final FetchRequestData data, final MirrorReplicaInfo info,
        final short version)
    {
        return FetchRequestCodec.serialize(data, info, version);
    }

    private static void checkVersion(final ApiKeys key, final short version)
    {
        if (version < key.oldestVersion() || version > latestVersion(key))
        {
            throw new UnsupportedVersionException(key + " has no version " + version + " here (versions "
                + key.oldestVersion() + " to " + latestVersion(key) + ")");
        }
    }

    private static ByteBuffer write(final ApiMessage data, final short layoutVersion)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(data.size(cache, layoutVersion));
        data.write(new ByteBufferAccessor(buffer), cache, layoutVersion);
        return buffer.flip();
    }

    private static ApiMessage readExactly(final ApiMessage into, final ApiKeys key, final short version,
        final ByteBuffer body, final String what)
    {
        Objects.requireNonNull(body, "body");
        try
        {
            into.read(new ByteBufferAccessor(body), layoutVersion(key, version));
        }
        catch (final BufferUnderflowException e)
        {
            throw new InvalidRequestException("Malformed " + key + " v" + version + " " + what + ": truncated");
        }
        catch (final InvalidRequestException | UnsupportedVersionException e)
        {
            throw e;
        }
        catch (final RuntimeException e)
        {
            // kafka-clients' generated readers signal bad lengths and nulls with plain RuntimeExceptions.
            throw new InvalidRequestException("Malformed " + key + " v" + version + " " + what + ": "
                + e.getMessage());
        }
        if (body.hasRemaining())
        {
            throw new InvalidRequestException(key + " v" + version + " " + what + " has " + body.remaining()
                + " bytes after its last field");
        }
        return into;
    }
}
