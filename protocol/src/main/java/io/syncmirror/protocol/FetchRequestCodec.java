package io.syncmirror.protocol;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.message.FetchRequestData.ReplicaState;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The Fetch request bodies of versions 19 and 20, which kafka-clients 4.4 (highest Fetch version 18) can neither
 * read nor write. Stateless and thread-safe.
 *
 * <p>Version 19 has the version 18 layout. Version 20 adds one regular field, {@link MirrorReplicaInfo}, after the
 * version 18 fields and before the tagged field section. The version 18 fields, in schema order, are MaxWaitMs
 * int32, MinBytes int32, MaxBytes int32, IsolationLevel int8, SessionId int32, SessionEpoch int32, Topics (compact
 * array of {@link FetchTopic}), ForgottenTopicsData (compact array of {@link ForgottenTopic}) and RackId (compact
 * string), then the tagged fields ClusterId (tag 0, a compact nullable string, written when not null) and
 * ReplicaState (tag 1, written when not at its defaults). The top level is coded here by hand, because the tagged
 * section must come after MirrorReplicaInfo; the nested structs are kafka-clients' own classes read and written at
 * version 18, so their layout cannot drift from Kafka's. Versions up to 18 are delegated to kafka-clients whole.
 *
 * <p>A decoded request is a {@link FetchRequestData} holding exactly what a version 18 request with the same fields
 * holds, so the broker's Fetch path takes it as a version 18 request; the mirror fields travel beside it.
 *
 * <p>Malformed input fails with {@link InvalidRequestException}: every length is checked against the bytes left
 * before anything is allocated (kafka-clients' generated readers do the same for their arrays), so no input makes
 * a read allocate more than the body holds or loop longer than it is long. Trailing bytes are rejected.
 */
public final class FetchRequestCodec
{
    /** The highest Fetch version kafka-clients 4.4 knows, and the layout of versions 19 and 20. */
    public static final short LAYOUT_VERSION = 18;

    /** The first Fetch version that carries {@link MirrorReplicaInfo}. */
    public static final short MIRROR_REPLICA_INFO_VERSION = 20;

    /** The highest Fetch version this codec reads and writes. */
    public static final short LATEST_VERSION = 20;

    private static final int CLUSTER_ID_TAG = 0;
    private static final int REPLICA_STATE_TAG = 1;
    private static final ReplicaState DEFAULT_REPLICA_STATE = new ReplicaState();

    private FetchRequestCodec()
    {
    }

    /**
     * A decoded Fetch request: the version 18 content and, at version 20 and above, the mirror replica info.
     *
     * @param data              the request as kafka-clients' version 18 data
     * @param mirrorReplicaInfo the MirrorReplicaInfo field; empty below version 20 and when it is at its defaults
     *                          (nothing to report)
     */
    public record DecodedFetchRequest(FetchRequestData data, Optional<MirrorReplicaInfo> mirrorReplicaInfo)
    {
        public DecodedFetchRequest
        {
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(mirrorReplicaInfo, "mirrorReplicaInfo");
        }
    }

    /** Whether this codec reads and writes Fetch {@code version}. */
    public static boolean isVersionSupported(final short version)
    {
        return version >= ApiKeys.FETCH.oldestVersion() && version <= LATEST_VERSION;
    }

    /** The kafka-clients version whose layout Fetch {@code version} has (its request and its response). */
    public static short layoutVersion(final short version)
    {
        return (short)Math.min(version, LAYOUT_VERSION);
    }

    /**
     * Reads a Fetch request body at {@code version} from {@code body}'s position to its limit.
     *
     * @throws UnsupportedVersionException if the version is not one this codec knows
     * @throws InvalidRequestException     if the body is truncated, malformed or followed by extra bytes
     */
    public static DecodedFetchRequest parse(final ByteBuffer body, final short version)
    {
        checkVersion(version);
        final ByteBufferAccessor readable = new ByteBufferAccessor(body);
        final DecodedFetchRequest decoded;
        try
        {
            if (version <= LAYOUT_VERSION)
            {
                decoded = new DecodedFetchRequest(new FetchRequestData(readable, version), Optional.empty());
            }
            else
            {
                decoded = readBeyondKafka(readable, version);
            }
        }
        catch (final InvalidRequestException e)
        {
            throw e;
        }
        catch (final BufferUnderflowException e)
        {
            throw new InvalidRequestException("Malformed Fetch v" + version + " request: truncated");
        }
        catch (final RuntimeException e)
        {
            // kafka-clients' generated readers signal bad lengths and nulls with plain RuntimeExceptions.
            throw new InvalidRequestException("Malformed Fetch v" + version + " request: " + e.getMessage());
        }
        if (body.hasRemaining())
        {
            throw new InvalidRequestException("Fetch v" + version + " body has " + body.remaining()
                + " bytes after its last field");
        }
        return decoded;
    }

    /**
     * Writes a Fetch request body at {@code version} into a new heap buffer positioned at 0. {@code info} is
     * written at version 20 and above (its defaults when null) and dropped below, as its schema marks it ignorable.
     *
     * @throws UnsupportedVersionException if the version is not one this codec knows, or a field is away from its
     *                                     default at a version that lacks it (as kafka-clients' writers refuse)
     */
    public static ByteBuffer serialize(final FetchRequestData data, final MirrorReplicaInfo info, final short version)
    {
        checkVersion(version);
        Objects.requireNonNull(data, "data");
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        if (version <= LAYOUT_VERSION)
        {
            final ByteBuffer buffer = ByteBuffer.allocate(data.size(cache, version));
            data.write(new ByteBufferAccessor(buffer), cache, version);
            return buffer.flip();
        }
        if (data.replicaId() != -1)
        {
            throw new UnsupportedVersionException("Attempted to write a non-default replicaId at version " + version
                + "; versions 15 and up carry it in ReplicaState");
        }
        final MirrorReplicaInfo mirror = version >= MIRROR_REPLICA_INFO_VERSION
            ? (info == null ? new MirrorReplicaInfo() : info)
            : null;
        final List<RawTaggedField> tagged = taggedFields(data, cache);
        int size = 4 + 4 + 4 + 1 + 4 + 4;
        size += WireCodec.sizeOfUnsignedVarint(data.topics().size() + 1);
        for (final FetchTopic topic : data.topics())
        {
            size += topic.size(cache, LAYOUT_VERSION);
        }
        size += WireCodec.sizeOfUnsignedVarint(data.forgottenTopicsData().size() + 1);
        for (final ForgottenTopic forgotten : data.forgottenTopicsData())
        {
            size += forgotten.size(cache, LAYOUT_VERSION);
        }
        size += WireCodec.sizeOfCompactNullableString(Objects.requireNonNull(data.rackId(), "rackId"));
        if (mirror != null)
        {
            size += mirror.size(cache, MirrorStruct.VERSION_0);
        }
        size += WireCodec.sizeOfTaggedFields(tagged);

        final ByteBuffer buffer = ByteBuffer.allocate(size);
        final Writable writable = new ByteBufferAccessor(buffer);
        writable.writeInt(data.maxWaitMs());
        writable.writeInt(data.minBytes());
        writable.writeInt(data.maxBytes());
        writable.writeByte(data.isolationLevel());
        writable.writeInt(data.sessionId());
        writable.writeInt(data.sessionEpoch());
        writable.writeUnsignedVarint(data.topics().size() + 1);
        for (final FetchTopic topic : data.topics())
        {
            topic.write(writable, cache, LAYOUT_VERSION);
        }
        writable.writeUnsignedVarint(data.forgottenTopicsData().size() + 1);
        for (final ForgottenTopic forgotten : data.forgottenTopicsData())
        {
            forgotten.write(writable, cache, LAYOUT_VERSION);
        }
        WireCodec.writeCompactString(writable, data.rackId(), "Fetch.RackId");
        if (mirror != null)
        {
            mirror.write(writable, cache, MirrorStruct.VERSION_0);
        }
        WireCodec.writeTaggedFields(writable, tagged);
        if (buffer.hasRemaining())
        {
            throw new IllegalStateException("Fetch v" + version + " wrote " + buffer.position() + " bytes but sized "
                + "itself at " + buffer.limit());
        }
        return buffer.flip();
    }

    private static void checkVersion(final short version)
    {
        if (!isVersionSupported(version))
        {
            throw new UnsupportedVersionException("Fetch has no version " + version + " in this codec (versions "
                + ApiKeys.FETCH.oldestVersion() + " to " + LATEST_VERSION + ")");
        }
    }

    private static DecodedFetchRequest readBeyondKafka(final Readable readable, final short version)
    {
        final FetchRequestData data = new FetchRequestData();
        data.setMaxWaitMs(WireCodec.readInt32(readable, "Fetch.MaxWaitMs"));
        data.setMinBytes(WireCodec.readInt32(readable, "Fetch.MinBytes"));
        data.setMaxBytes(WireCodec.readInt32(readable, "Fetch.MaxBytes"));
        data.setIsolationLevel(WireCodec.readInt8(readable, "Fetch.IsolationLevel"));
        data.setSessionId(WireCodec.readInt32(readable, "Fetch.SessionId"));
        data.setSessionEpoch(WireCodec.readInt32(readable, "Fetch.SessionEpoch"));
        // A FetchTopic is at least a uuid, an array length and a tagged section; a ForgottenTopic likewise.
        final int topicCount = WireCodec.readCompactArrayLength(readable, "Fetch.Topics", false, 18);
        final List<FetchTopic> topics = new ArrayList<>(topicCount);
        for (int i = 0; i < topicCount; i++)
        {
            topics.add(new FetchTopic(readable, LAYOUT_VERSION));
        }
        data.setTopics(topics);
        final int forgottenCount = WireCodec.readCompactArrayLength(readable, "Fetch.ForgottenTopicsData", false, 18);
        final List<ForgottenTopic> forgotten = new ArrayList<>(forgottenCount);
        for (int i = 0; i < forgottenCount; i++)
        {
            forgotten.add(new ForgottenTopic(readable, LAYOUT_VERSION));
        }
        data.setForgottenTopicsData(forgotten);
        data.setRackId(WireCodec.readCompactString(readable, "Fetch.RackId"));
        Optional<MirrorReplicaInfo> mirror = Optional.empty();
        if (version >= MIRROR_REPLICA_INFO_VERSION)
        {
            final MirrorReplicaInfo info = new MirrorReplicaInfo();
            info.read(readable, MirrorStruct.VERSION_0);
            mirror = info.isEmpty() ? Optional.empty() : Optional.of(info);
        }
        for (final RawTaggedField field : WireCodec.readTaggedFields(readable, "Fetch"))
        {
            final ByteBufferAccessor value = new ByteBufferAccessor(ByteBuffer.wrap(field.data()));
            if (field.tag() == CLUSTER_ID_TAG)
            {
                data.setClusterId(WireCodec.readCompactNullableString(value, "Fetch.ClusterId"));
            }
            else if (field.tag() == REPLICA_STATE_TAG)
            {
                data.setReplicaState(new ReplicaState(value, LAYOUT_VERSION));
            }
            else
            {
                data.unknownTaggedFields().add(field);
                continue;
            }
            if (value.remaining() != 0)
            {
                throw WireCodec.malformed("Fetch.TaggedFields", "tag " + field.tag() + " has " + value.remaining()
                    + " bytes after its value");
            }
        }
        return new DecodedFetchRequest(data, mirror);
    }

    /** The request's known tagged fields away from their defaults and its unknown ones, in ascending tag order. */
    private static List<RawTaggedField> taggedFields(final FetchRequestData data, final ObjectSerializationCache cache)
    {
        final List<RawTaggedField> known = new ArrayList<>(2);
        if (data.clusterId() != null)
        {
            final ByteBuffer value = ByteBuffer.allocate(WireCodec.sizeOfCompactNullableString(data.clusterId()));
            WireCodec.writeCompactNullableString(new ByteBufferAccessor(value), data.clusterId(), "Fetch.ClusterId");
            known.add(new RawTaggedField(CLUSTER_ID_TAG, value.array()));
        }
        if (!DEFAULT_REPLICA_STATE.equals(data.replicaState()))
        {
            final ByteBuffer value = ByteBuffer.allocate(data.replicaState().size(cache, LAYOUT_VERSION));
            data.replicaState().write(new ByteBufferAccessor(value), cache, LAYOUT_VERSION);
            known.add(new RawTaggedField(REPLICA_STATE_TAG, value.array()));
        }
        final List<RawTaggedField> merged = new ArrayList<>(known.size() + data.unknownTaggedFields().size());
        merged.addAll(known);
        for (final RawTaggedField field : data.unknownTaggedFields())
        {
            if (field.tag() == CLUSTER_ID_TAG || field.tag() == REPLICA_STATE_TAG)
            {
                throw new IllegalArgumentException("Fetch unknown tagged fields hold tag " + field.tag()
                    + ", which is a known field");
            }
            merged.add(field);
        }
        merged.sort((a, b) -> Integer.compare(a.tag(), b.tag()));
        return merged;
    }
}
