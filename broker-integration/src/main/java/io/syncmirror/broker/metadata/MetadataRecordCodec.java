package io.syncmirror.broker.metadata;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The binary form of {@link MetadataRecord}s, stored as Kafka record values in record batches. Stateless, so
 * thread-safe.
 *
 * <p>Layout of a value, big-endian: {@code int16 frameVersion, int8 type, int16 typeVersion, fields...}. Strings
 * are {@code int16 length + UTF-8} with length -1 for null; uuids two {@code int64}; int lists {@code int32 count +
 * int32 each}; string lists {@code int32 count + strings}; string maps {@code int32 count + (key, value)
 * strings} in key order. A reader that meets a higher frame version or an unknown type fails loudly
 * ({@link CorruptRecordException}) rather than skipping state: a silently skipped record would fork the image.
 * New fields are added by bumping a type's version and reading them only at that version.
 */
public final class MetadataRecordCodec
{
    public static final short FRAME_VERSION = 0;

    static final byte TYPE_REGISTER_BROKER = 1;
    static final byte TYPE_FENCE_BROKER = 2;
    static final byte TYPE_UNFENCE_BROKER = 3;
    static final byte TYPE_TOPIC = 4;
    static final byte TYPE_PARTITION = 5;
    static final byte TYPE_PARTITION_CHANGE = 6;
    static final byte TYPE_REMOVE_TOPIC = 7;
    static final byte TYPE_CONFIG = 8;
    static final byte TYPE_PRODUCER_IDS = 9;
    static final byte TYPE_PRODUCER_ID_FLOOR = 10;
    static final byte TYPE_MIRROR = 11;
    static final byte TYPE_REMOVE_MIRROR = 12;
    static final byte TYPE_MIRROR_SYNC_REGISTRATION_CHANGE = 13;
    static final byte TYPE_MIRROR_TOPIC_TYPE_CHANGE = 14;
    static final byte TYPE_USER_SCRAM_CREDENTIAL = 15;
    static final byte TYPE_REMOVE_USER_SCRAM_CREDENTIAL = 16;
    static final byte TYPE_ACL = 17;
    static final byte TYPE_REMOVE_ACL = 18;
    static final byte TYPE_MIRROR_ACL = 19;
    static final byte TYPE_REMOVE_MIRROR_ACL = 20;

    private static final short TYPE_VERSION = 0;
    /** RegisterBroker v1 adds every advertised listener (name, host, port) after v0's fields. */
    private static final short REGISTER_BROKER_LISTENERS_VERSION = 1;

    private MetadataRecordCodec()
    {
    }

    /** One batch (uncompressed) holding {@code records} in order, base offset {@code baseOffset}. */
    public static MemoryRecords encodeBatch(final long baseOffset, final long timestampMs,
        final List<MetadataRecord> records)
    {
        final SimpleRecord[] simple = new SimpleRecord[records.size()];
        for (int i = 0; i < simple.length; i++)
        {
            simple[i] = new SimpleRecord(timestampMs, null, encode(records.get(i)));
        }
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, simple);
    }

    /** The records of every data batch in {@code records}, each with its offset, skipping control batches. */
    public static List<OffsetRecord> decodeAll(final Records records)
    {
        final List<OffsetRecord> out = new ArrayList<>();
        for (final RecordBatch batch : records.batches())
        {
            if (batch.isControlBatch())
            {
                continue;
            }
            for (final Record record : batch)
            {
                out.add(new OffsetRecord(record.offset(), decode(record.value())));
            }
        }
        return out;
    }

    /** A decoded record and its metadata log offset. */
    public record OffsetRecord(long offset, MetadataRecord record)
    {
    }

    public static byte[] encode(final MetadataRecord record)
    {
        final Writer w = new Writer();
        w.putShort(FRAME_VERSION);
        if (record instanceof MetadataRecord.RegisterBroker r)
        {
            // v0 when there are no listeners, so a one-endpoint registration reads as it always did.
            w.header(TYPE_REGISTER_BROKER, r.listeners().isEmpty() ? TYPE_VERSION : REGISTER_BROKER_LISTENERS_VERSION);
            w.putInt(r.brokerId());
            w.putLong(r.brokerEpoch());
            w.putUuid(r.incarnationId());
            w.putString(r.host());
            w.putInt(r.port());
            w.putString(r.rack());
            if (!r.listeners().isEmpty())
            {
                w.putInt(r.listeners().size());
                for (final ListenerEndpoint listener : r.listeners())
                {
                    w.putString(listener.name());
                    w.putString(listener.host());
                    w.putInt(listener.port());
                }
            }
        }
        else if (record instanceof MetadataRecord.FenceBroker r)
        {
            w.header(TYPE_FENCE_BROKER);
            w.putInt(r.brokerId());
            w.putLong(r.brokerEpoch());
        }
        else if (record instanceof MetadataRecord.UnfenceBroker r)
        {
            w.header(TYPE_UNFENCE_BROKER);
            w.putInt(r.brokerId());
            w.putLong(r.brokerEpoch());
        }
        else if (record instanceof MetadataRecord.Topic r)
        {
            w.header(TYPE_TOPIC);
            w.putString(r.name());
            w.putUuid(r.topicId());
        }
        else if (record instanceof MetadataRecord.Partition r)
        {
            final PartitionState s = r.state();
            w.header(TYPE_PARTITION);
            w.putString(s.topic());
            w.putUuid(s.topicId());
            w.putInt(s.partition());
            w.putInts(s.replicas());
            w.putInts(s.isr());
            w.putInt(s.leader());
            w.putInt(s.leaderEpoch());
            w.putInt(s.partitionEpoch());
        }
        else if (record instanceof MetadataRecord.PartitionChange r)
        {
            w.header(TYPE_PARTITION_CHANGE);
            w.putUuid(r.topicId());
            w.putInt(r.partition());
            w.putInts(r.isr());
            w.putInt(r.leader());
            w.putInt(r.leaderEpoch());
            w.putInt(r.partitionEpoch());
        }
        else if (record instanceof MetadataRecord.RemoveTopic r)
        {
            w.header(TYPE_REMOVE_TOPIC);
            w.putUuid(r.topicId());
        }
        else if (record instanceof MetadataRecord.Config r)
        {
            w.header(TYPE_CONFIG);
            w.putString(r.topic());
            w.putString(r.key());
            w.putString(r.value());
        }
        else if (record instanceof MetadataRecord.ProducerIds r)
        {
            w.header(TYPE_PRODUCER_IDS);
            w.putInt(r.brokerId());
            w.putLong(r.brokerEpoch());
            w.putLong(r.nextBlockStart());
        }
        else if (record instanceof MetadataRecord.ProducerIdFloor r)
        {
            w.header(TYPE_PRODUCER_ID_FLOOR);
            w.putLong(r.floor());
        }
        else if (record instanceof MetadataRecord.Mirror r)
        {
            w.header(TYPE_MIRROR);
            w.putString(r.name());
            w.putString(r.sourceBootstrapServers());
            w.putStringMap(r.sourceConfigs());
            w.putStrings(r.includeTopics());
            w.putStrings(r.excludeTopics());
            if (!r.mirrorConfigs().isEmpty())
            {
                w.putStringMap(r.mirrorConfigs());
            }
        }
        else if (record instanceof MetadataRecord.RemoveMirror r)
        {
            w.header(TYPE_REMOVE_MIRROR);
            w.putString(r.name());
        }
        else if (record instanceof MetadataRecord.MirrorSyncRegistrationChange r)
        {
            w.header(TYPE_MIRROR_SYNC_REGISTRATION_CHANGE);
            w.putUuid(r.topicId());
            w.putString(r.mirrorName());
            w.putInt(r.registered() ? 1 : 0);
        }
        else if (record instanceof MetadataRecord.MirrorTopicTypeChange r)
        {
            w.header(TYPE_MIRROR_TOPIC_TYPE_CHANGE);
            w.putUuid(r.topicId());
            w.putInt(r.mirrorType());
            w.putLong(r.driverEpoch());
        }
        else if (record instanceof MetadataRecord.UserScramCredential r)
        {
            w.header(TYPE_USER_SCRAM_CREDENTIAL);
            w.putString(r.user());
            w.putInt(r.mechanism());
            w.putBytes(r.salt());
            w.putBytes(r.storedKey());
            w.putBytes(r.serverKey());
            w.putInt(r.iterations());
        }
        else if (record instanceof MetadataRecord.RemoveUserScramCredential r)
        {
            w.header(TYPE_REMOVE_USER_SCRAM_CREDENTIAL);
            w.putString(r.user());
            w.putInt(r.mechanism());
        }
        else if (record instanceof MetadataRecord.Acl r)
        {
            w.header(TYPE_ACL);
            putAcl(w, r);
        }
        else if (record instanceof MetadataRecord.MirrorAcl r)
        {
            w.header(TYPE_MIRROR_ACL);
            w.putString(r.mirrorName());
            w.putInt((r.held() ? 1 : 0) | (r.created() ? 2 : 0));
            putAcl(w, r.acl());
        }
        else if (record instanceof MetadataRecord.RemoveMirrorAcl r)
        {
            w.header(TYPE_REMOVE_MIRROR_ACL);
            w.putUuid(r.id());
        }
        else if (record instanceof MetadataRecord.RemoveAcl r)
        {
            w.header(TYPE_REMOVE_ACL);
            w.putUuid(r.id());
        }
        else
        {
            throw new IllegalArgumentException("unknown metadata record " + record);
        }
        return w.toArray();
    }

    public static MetadataRecord decode(final ByteBuffer value)
    {
        if (value == null)
        {
            throw new CorruptRecordException("metadata record without a value");
        }
        final ByteBuffer b = value.duplicate();
        try
        {
            final short frameVersion = b.getShort();
            if (frameVersion > FRAME_VERSION)
            {
                throw new CorruptRecordException("metadata frame version " + frameVersion + " is newer than "
                    + FRAME_VERSION);
            }
            final byte type = b.get();
            final short typeVersion = b.getShort();
            final short newest = type == TYPE_REGISTER_BROKER ? REGISTER_BROKER_LISTENERS_VERSION : TYPE_VERSION;
            if (typeVersion > newest)
            {
                throw new CorruptRecordException("metadata record type " + type + " version " + typeVersion
                    + " is newer than this reader");
            }
            switch (type)
            {
                case TYPE_REGISTER_BROKER:
                {
                    final int brokerId = b.getInt();
                    final long epoch = b.getLong();
                    final Uuid incarnation = getUuid(b);
                    final String host = getString(b);
                    final int port = b.getInt();
                    final String rack = getString(b);
                    final List<ListenerEndpoint> listeners = new ArrayList<>();
                    if (typeVersion >= REGISTER_BROKER_LISTENERS_VERSION)
                    {
                        final int count = b.getInt();
                        if (count < 0 || count > b.remaining())
                        {
                            throw new CorruptRecordException("RegisterBroker with " + count + " listeners");
                        }
                        for (int i = 0; i < count; i++)
                        {
                            listeners.add(new ListenerEndpoint(getString(b), getString(b), b.getInt()));
                        }
                    }
                    return new MetadataRecord.RegisterBroker(brokerId, epoch, incarnation, host, port, rack,
                        listeners);
                }
                case TYPE_FENCE_BROKER:
                    return new MetadataRecord.FenceBroker(b.getInt(), b.getLong());
                case TYPE_UNFENCE_BROKER:
                    return new MetadataRecord.UnfenceBroker(b.getInt(), b.getLong());
                case TYPE_TOPIC:
                    return new MetadataRecord.Topic(getString(b), getUuid(b));
                case TYPE_PARTITION:
                    return new MetadataRecord.Partition(new PartitionState(getString(b), getUuid(b), b.getInt(),
                        getInts(b), getInts(b), b.getInt(), b.getInt(), b.getInt()));
                case TYPE_PARTITION_CHANGE:
                    return new MetadataRecord.PartitionChange(getUuid(b), b.getInt(), getInts(b), b.getInt(),
                        b.getInt(), b.getInt());
                case TYPE_REMOVE_TOPIC:
                    return new MetadataRecord.RemoveTopic(getUuid(b));
                case TYPE_CONFIG:
                    return new MetadataRecord.Config(getString(b), getString(b), getString(b));
                case TYPE_PRODUCER_IDS:
                    return new MetadataRecord.ProducerIds(b.getInt(), b.getLong(), b.getLong());
                case TYPE_PRODUCER_ID_FLOOR:
                    return new MetadataRecord.ProducerIdFloor(b.getLong());
                case TYPE_MIRROR:
                    // The mirror configs came later, written only when there are some: absent, the record ends.
                    return new MetadataRecord.Mirror(getString(b), getString(b), getStringMap(b), getStrings(b),
                        getStrings(b), b.hasRemaining() ? getStringMap(b) : Map.of());
                case TYPE_REMOVE_MIRROR:
                    return new MetadataRecord.RemoveMirror(getString(b));
                case TYPE_MIRROR_SYNC_REGISTRATION_CHANGE:
                    return new MetadataRecord.MirrorSyncRegistrationChange(getUuid(b), getString(b), b.getInt() != 0);
                case TYPE_MIRROR_TOPIC_TYPE_CHANGE:
                    // The driver's number came later: a record written before it ends after the type.
                    return new MetadataRecord.MirrorTopicTypeChange(getUuid(b), (byte)b.getInt(),
                        b.remaining() >= Long.BYTES ? b.getLong() : SyncCommitFence.NONE);
                case TYPE_USER_SCRAM_CREDENTIAL:
                    return new MetadataRecord.UserScramCredential(getString(b), (byte)b.getInt(), getBytes(b),
                        getBytes(b), getBytes(b), b.getInt());
                case TYPE_REMOVE_USER_SCRAM_CREDENTIAL:
                    return new MetadataRecord.RemoveUserScramCredential(getString(b), (byte)b.getInt());
                case TYPE_ACL:
                    return getAcl(b);
                case TYPE_MIRROR_ACL:
                {
                    final String mirrorName = getString(b);
                    final int flags = b.getInt();
                    return new MetadataRecord.MirrorAcl(mirrorName, (flags & 1) != 0, (flags & 2) != 0, getAcl(b));
                }
                case TYPE_REMOVE_MIRROR_ACL:
                    return new MetadataRecord.RemoveMirrorAcl(getUuid(b));
                case TYPE_REMOVE_ACL:
                    return new MetadataRecord.RemoveAcl(getUuid(b));
                default:
                    throw new CorruptRecordException("unknown metadata record type " + type);
            }
        }
        catch (final java.nio.BufferUnderflowException e)
        {
            throw new CorruptRecordException("truncated metadata record");
        }
    }

    private static MetadataRecord.Acl getAcl(final ByteBuffer b)
    {
        return new MetadataRecord.Acl(getUuid(b), (byte)b.getInt(), getString(b), (byte)b.getInt(), getString(b),
            getString(b), (byte)b.getInt(), (byte)b.getInt());
    }

    private static Uuid getUuid(final ByteBuffer b)
    {
        return new Uuid(b.getLong(), b.getLong());
    }

    private static String getString(final ByteBuffer b)
    {
        final short length = b.getShort();
        if (length < 0)
        {
            return null;
        }
        final byte[] bytes = new byte[length];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] getBytes(final ByteBuffer b)
    {
        final int length = b.getInt();
        if (length < 0 || length > b.remaining())
        {
            throw new CorruptRecordException("bad byte array length " + length);
        }
        final byte[] bytes = new byte[length];
        b.get(bytes);
        return bytes;
    }

    private static List<Integer> getInts(final ByteBuffer b)
    {
        final int count = b.getInt();
        if (count < 0 || count > b.remaining() / Integer.BYTES)
        {
            throw new CorruptRecordException("bad int list length " + count);
        }
        final Integer[] out = new Integer[count];
        for (int i = 0; i < count; i++)
        {
            out[i] = b.getInt();
        }
        return List.of(out);
    }

    private static List<String> getStrings(final ByteBuffer b)
    {
        final int count = b.getInt();
        if (count < 0 || count > b.remaining() / Short.BYTES)
        {
            throw new CorruptRecordException("bad string list length " + count);
        }
        final List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final String s = getString(b);
            if (s == null)
            {
                throw new CorruptRecordException("null in a string list");
            }
            out.add(s);
        }
        return Collections.unmodifiableList(out);
    }

    private static Map<String, String> getStringMap(final ByteBuffer b)
    {
        final int count = b.getInt();
        if (count < 0 || count > b.remaining() / (2 * Short.BYTES))
        {
            throw new CorruptRecordException("bad string map size " + count);
        }
        final Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < count; i++)
        {
            final String key = getString(b);
            final String value = getString(b);
            if (key == null || value == null)
            {
                throw new CorruptRecordException("null in a string map");
            }
            out.put(key, value);
        }
        return Collections.unmodifiableMap(out);
    }

    /** A growable big-endian buffer; records are small, so doubling from 64 bytes is enough. */
    private static void putAcl(final Writer w, final MetadataRecord.Acl r)
    {
        w.putUuid(r.id());
        w.putInt(r.resourceType());
        w.putString(r.resourceName());
        w.putInt(r.patternType());
        w.putString(r.principal());
        w.putString(r.host());
        w.putInt(r.operation());
        w.putInt(r.permissionType());
    }

    private static final class Writer
    {
        private ByteBuffer buffer = ByteBuffer.allocate(64);

        void header(final byte type)
        {
            header(type, TYPE_VERSION);
        }

        void header(final byte type, final short version)
        {
            ensure(3);
            buffer.put(type);
            buffer.putShort(version);
        }

        void putShort(final short v)
        {
            ensure(Short.BYTES);
            buffer.putShort(v);
        }

        void putInt(final int v)
        {
            ensure(Integer.BYTES);
            buffer.putInt(v);
        }

        void putLong(final long v)
        {
            ensure(Long.BYTES);
            buffer.putLong(v);
        }

        void putUuid(final Uuid id)
        {
            putLong(id.getMostSignificantBits());
            putLong(id.getLeastSignificantBits());
        }

        void putString(final String s)
        {
            if (s == null)
            {
                putShort((short) -1);
                return;
            }
            final byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > Short.MAX_VALUE)
            {
                throw new IllegalArgumentException("string too long for a metadata record: " + bytes.length);
            }
            putShort((short) bytes.length);
            ensure(bytes.length);
            buffer.put(bytes);
        }

        void putBytes(final byte[] bytes)
        {
            putInt(bytes.length);
            ensure(bytes.length);
            buffer.put(bytes);
        }

        void putInts(final List<Integer> values)
        {
            putInt(values.size());
            for (final int v : values)
            {
                putInt(v);
            }
        }

        void putStrings(final List<String> values)
        {
            putInt(values.size());
            for (final String v : values)
            {
                putString(Objects.requireNonNull(v, "null in a string list"));
            }
        }

        void putStringMap(final Map<String, String> values)
        {
            putInt(values.size());
            for (final Map.Entry<String, String> e : new TreeMap<>(values).entrySet())
            {
                putString(Objects.requireNonNull(e.getKey(), "null map key"));
                putString(Objects.requireNonNull(e.getValue(), "null value for " + e.getKey()));
            }
        }

        byte[] toArray()
        {
            final byte[] out = new byte[buffer.position()];
            buffer.flip();
            buffer.get(out);
            return out;
        }

        private void ensure(final int bytes)
        {
            if (buffer.remaining() < bytes)
            {
                final ByteBuffer bigger =
                    ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + bytes));
                buffer.flip();
                bigger.put(buffer);
                buffer = bigger;
            }
        }
    }
}
