package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The {@code MirrorReplicaInfo} field of a Fetch request at version 20 and above: the destination cluster's mirror
 * name and, per mirrored partition, its replicas' last fetch offsets, ISR and min.insync.replicas, which the source
 * uses to gate its high watermark on the destination's ISR. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field. The struct is a regular (not
 * tagged) field of the Fetch request, placed after the version 18 fields and before the request's tagged field
 * section, and it is flexible like the whole request: each nested struct ends with its own tagged field section.
 * Its encoding does not change between Fetch versions 20 and up, so it is written and read here as this project's
 * struct "version 0" ({@link MirrorStruct}); {@link FetchRequestCodec} places it in the Fetch body. It is written
 * by hand, not generated from a schema as the mirror RPCs are, because a source reads it on every Fetch: see
 * {@link MirrorStruct} for the one-pass read that keeps.
 *
 * <p>The field is {@code ignorable}: a writer at Fetch version 19 or below drops it. A struct at its defaults
 * (empty mirror name, no topics) is what a version 20 writer sends when it has nothing to report, and
 * {@link #isEmpty()} tells a reader so.
 */
public final class MirrorReplicaInfo extends MirrorStruct
{
    /** The tag of the FullReport tagged field. */
    public static final int FULL_REPORT_TAG = 0;
    /** Within a partition: the tag of the DestinationLeaderEpoch tagged field. */
    public static final int DESTINATION_LEADER_EPOCH_TAG = 0;
    /** Within a partition: the tag of the ValidatedSourceEpoch tagged field. */
    public static final int VALIDATED_SOURCE_EPOCH_TAG = 1;

    private String mirrorName = "";
    private List<MirroredTopic> topics = new ArrayList<>(0);
    private boolean fullReport;

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

    /**
     * The FullReport tagged field (tag 0, default false): true when the topics list every partition the destination
     * reports to this source broker (its first report on a new connection), so that the source forgets what the
     * mirror reported for any other partition (hazard 4).
     */
    public boolean fullReport()
    {
        return fullReport;
    }

    public MirrorReplicaInfo setFullReport(final boolean value)
    {
        this.fullReport = value;
        return this;
    }

    /** Whether every field is at its default: the encoding of "nothing to report". */
    public boolean isEmpty()
    {
        return mirrorName.isEmpty() && topics.isEmpty() && !fullReport && unknownTaggedFields().isEmpty();
    }

    @Override
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        if (tag != FULL_REPORT_TAG)
        {
            return false;
        }
        fullReport = WireCodec.readBool(data, "MirrorReplicaInfo.FullReport");
        return true;
    }

    @Override
    protected List<RawTaggedField> knownTaggedFields()
    {
        return fullReport ? List.of(new RawTaggedField(FULL_REPORT_TAG, new byte[] {1})) : List.of();
    }

    @Override
    protected void resetKnownTaggedFields()
    {
        fullReport = false;
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
        return "mirrorName=" + mirrorName + ", topics=" + topics + ", fullReport=" + fullReport;
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
        private int destinationLeaderEpoch = -1;
        private int validatedSourceEpoch = -1;

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

        /**
         * The DestinationLeaderEpoch tagged field (tag 0, default -1): the reporting destination leader's epoch, so
         * that the source ignores reports of a deposed leader (hazard 1).
         */
        public int destinationLeaderEpoch()
        {
            return destinationLeaderEpoch;
        }

        public MirroredTopicPartition setDestinationLeaderEpoch(final int value)
        {
            this.destinationLeaderEpoch = value;
            return this;
        }

        /**
         * The ValidatedSourceEpoch tagged field (tag 1, default -1): the source leader epoch against which the
         * destination last validated its log (a fetch in that epoch answered without DivergingEpoch). A source
         * leader credits the reported LEOs only when it is its own epoch (hazard 1).
         */
        public int validatedSourceEpoch()
        {
            return validatedSourceEpoch;
        }

        public MirroredTopicPartition setValidatedSourceEpoch(final int value)
        {
            this.validatedSourceEpoch = value;
            return this;
        }

        @Override
        protected boolean readKnownTaggedField(final int tag, final Readable data)
        {
            if (tag == DESTINATION_LEADER_EPOCH_TAG)
            {
                destinationLeaderEpoch = WireCodec.readInt32(data,
                    "MirrorReplicaInfo.Topics.Partitions.DestinationLeaderEpoch");
                return true;
            }
            if (tag == VALIDATED_SOURCE_EPOCH_TAG)
            {
                validatedSourceEpoch = WireCodec.readInt32(data,
                    "MirrorReplicaInfo.Topics.Partitions.ValidatedSourceEpoch");
                return true;
            }
            return false;
        }

        @Override
        protected List<RawTaggedField> knownTaggedFields()
        {
            final List<RawTaggedField> fields = new ArrayList<>(2);
            if (destinationLeaderEpoch != -1)
            {
                fields.add(new RawTaggedField(DESTINATION_LEADER_EPOCH_TAG, int32(destinationLeaderEpoch)));
            }
            if (validatedSourceEpoch != -1)
            {
                fields.add(new RawTaggedField(VALIDATED_SOURCE_EPOCH_TAG, int32(validatedSourceEpoch)));
            }
            return fields;
        }

        @Override
        protected void resetKnownTaggedFields()
        {
            destinationLeaderEpoch = -1;
            validatedSourceEpoch = -1;
        }

        private static byte[] int32(final int value)
        {
            return new byte[] {(byte)(value >>> 24), (byte)(value >>> 16), (byte)(value >>> 8), (byte)value};
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
                + ", minIsr=" + minIsr + ", destinationLeaderEpoch=" + destinationLeaderEpoch
                + ", validatedSourceEpoch=" + validatedSourceEpoch;
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
