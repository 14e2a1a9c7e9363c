package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The {@code MirrorReplicaInfo} field of a Fetch request at version 20 and above: the destination cluster's mirror
 * name and, per mirrored partition, its replicas' last fetch offsets, ISR and min.insync.replicas, which the source
 * uses to gate its high watermark on the destination's ISR. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field. The struct is a regular (not
 * tagged) field of the Fetch request, placed after the version 18 fields and before the request's tagged field
 * section, and it is flexible like the whole request: each nested struct ends with its own tagged field section.
 * Its encoding does not change between Fetch versions 20 and up, so it is written and read here as this project's
 * struct "version 0" ({@link MirrorStruct}); {@link FetchRequestCodec} places it in the Fetch body.
 *
 * <p>The field is {@code ignorable}: a writer at Fetch version 19 or below drops it. A struct at its defaults
 * (empty mirror name, no topics) is what a version 20 writer sends when it has nothing to report, and
 * {@link #isEmpty()} tells a reader so.
 */
public final class MirrorReplicaInfo extends MirrorStruct
{
    private String mirrorName = "";
    private List<MirroredTopic> topics = new ArrayList<>(0);

    /** The destination cluster's mirror name, identifying which registered destination reports. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public MirrorReplicaInfo setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The mirrored topics with replica info. */
    public List<MirroredTopic> topics()
    {
        return topics;
    }

    public MirrorReplicaInfo setTopics(final List<MirroredTopic> value)
    {
        this.topics = value;
        return this;
    }

    /** Whether every field is at its default: the encoding of "nothing to report". */
    public boolean isEmpty()
    {
        return mirrorName.isEmpty() && topics.isEmpty() && unknownTaggedFields().isEmpty();
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "MirrorReplicaInfo.MirrorName");
        topics = readStructs(readable, "MirrorReplicaInfo.Topics", MirroredTopic::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "MirrorReplicaInfo.MirrorName");
        writeStructs(writable, topics, "MirrorReplicaInfo.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + sizeOfStructs(topics);
    }

    @Override
    protected MirrorReplicaInfo newInstance()
    {
        return new MirrorReplicaInfo();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName + ", topics=" + topics;
    }

    /** One mirrored topic and its partitions' replica info. */
    public static final class MirroredTopic extends MirrorStruct
    {
        private String topic = "";
        private Uuid topicId = Uuid.ZERO_UUID;
        private List<MirroredTopicPartition> partitions = new ArrayList<>(0);

        /** The topic name. */
        public String topic()
        {
            return topic;
        }

        public MirroredTopic setTopic(final String value)
        {
            this.topic = value;
            return this;
        }

        /** The topic id (the source's, which mirror topics keep). */
        public Uuid topicId()
        {
            return topicId;
        }

        public MirroredTopic setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The partitions with replica info. */
        public List<MirroredTopicPartition> partitions()
        {
            return partitions;
        }

        public MirroredTopic setPartitions(final List<MirroredTopicPartition> value)
        {
            this.partitions = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topic = WireCodec.readCompactString(readable, "MirrorReplicaInfo.Topics.Topic");
            topicId = WireCodec.readUuid(readable, "MirrorReplicaInfo.Topics.TopicId");
            partitions = readStructs(readable, "MirrorReplicaInfo.Topics.Partitions", MirroredTopicPartition::new);
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, topic, "MirrorReplicaInfo.Topics.Topic");
            WireCodec.writeUuid(writable, topicId, "MirrorReplicaInfo.Topics.TopicId");
            writeStructs(writable, partitions, "MirrorReplicaInfo.Topics.Partitions");
        }

        @Override
        protected int fieldsSize()
        {
            return WireCodec.sizeOfCompactNullableString(topic)
                + 16
                + sizeOfStructs(partitions);
        }

        @Override
        protected MirroredTopic newInstance()
        {
            return new MirroredTopic();
        }

        @Override
        protected String fieldsToString()
        {
            return "topic=" + topic + ", topicId=" + topicId + ", partitions=" + partitions;
        }
    }

    /** One partition's replica info on the destination cluster. */
    public static final class MirroredTopicPartition extends MirrorStruct
    {
        private int partition;
        private List<ReplicaLastOffset> replicaLastOffsets = new ArrayList<>(0);
        private List<Integer> isr = new ArrayList<>(0);
        private int minIsr;

        /** The partition index. */
        public int partition()
        {
            return partition;
        }

        public MirroredTopicPartition setPartition(final int value)
        {
            this.partition = value;
            return this;
        }

        /** The destination replicas' last fetch offsets. */
        public List<ReplicaLastOffset> replicaLastOffsets()
        {
            return replicaLastOffsets;
        }

        public MirroredTopicPartition setReplicaLastOffsets(final List<ReplicaLastOffset> value)
        {
            this.replicaLastOffsets = value;
            return this;
        }

        /** The current ISR replica ids on the destination cluster. */
        public List<Integer> isr()
        {
            return isr;
        }

        public MirroredTopicPartition setIsr(final List<Integer> value)
        {
            this.isr = value;
            return this;
        }

        /** The configured min.insync.replicas on the destination cluster. */
        public int minIsr()
        {
            return minIsr;
        }

        public MirroredTopicPartition setMinIsr(final int value)
        {
            this.minIsr = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            partition = WireCodec.readInt32(readable, "MirrorReplicaInfo.Topics.Partitions.Partition");
            replicaLastOffsets = readStructs(readable, "MirrorReplicaInfo.Topics.Partitions.ReplicaLastOffsets",
                ReplicaLastOffset::new);
            isr = WireCodec.readCompactInt32Array(readable, "MirrorReplicaInfo.Topics.Partitions.ISR");
            minIsr = WireCodec.readInt32(readable, "MirrorReplicaInfo.Topics.Partitions.MinISR");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            writable.writeInt(partition);
            writeStructs(writable, replicaLastOffsets, "MirrorReplicaInfo.Topics.Partitions.ReplicaLastOffsets");
            WireCodec.writeCompactInt32Array(writable, isr, "MirrorReplicaInfo.Topics.Partitions.ISR");
            writable.writeInt(minIsr);
        }

        @Override
        protected int fieldsSize()
        {
            return 4
                + sizeOfStructs(replicaLastOffsets)
                + WireCodec.sizeOfCompactInt32Array(isr)
                + 4;
        }

        @Override
        protected MirroredTopicPartition newInstance()
        {
            return new MirroredTopicPartition();
        }

        @Override
        protected String fieldsToString()
        {
            return "partition=" + partition + ", replicaLastOffsets=" + replicaLastOffsets + ", isr=" + isr
                + ", minIsr=" + minIsr;
        }
    }

    /** One destination replica's last fetch offset. */
    public static final class ReplicaLastOffset extends MirrorStruct
    {
        private int replicaId;
        private long lastFetchOffset;

        /** The destination replica's broker id. */
        public int replicaId()
        {
            return replicaId;
        }

        public ReplicaLastOffset setReplicaId(final int value)
        {
            this.replicaId = value;
            return this;
        }

        /** The replica's last fetch offset on the destination cluster. */
        public long lastFetchOffset()
        {
            return lastFetchOffset;
        }

        public ReplicaLastOffset setLastFetchOffset(final long value)
        {
            this.lastFetchOffset = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            replicaId = WireCodec.readInt32(readable, "MirrorReplicaInfo.Topics.Partitions.ReplicaLastOffsets.ReplicaId");
            lastFetchOffset = WireCodec.readInt64(readable,
                "MirrorReplicaInfo.Topics.Partitions.ReplicaLastOffsets.LastFetchOffset");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            writable.writeInt(replicaId);
            writable.writeLong(lastFetchOffset);
        }

        @Override
        protected int fieldsSize()
        {
            return 4 + 8;
        }

        @Override
        protected ReplicaLastOffset newInstance()
        {
            return new ReplicaLastOffset();
        }

        @Override
        protected String fieldsToString()
        {
            return "replicaId=" + replicaId + ", lastFetchOffset=" + lastFetchOffset;
        }
    }
}
