package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The DescribeClusterMirrors response (version 0, flexible): per mirror, per topic, the desired and effective
 * mirror types and per-partition state. Not thread-safe.
 *
 * <p>The KIP-1279 text names this RPC without giving its schema; the schema here is designed in the shape of the
 * mirror RPCs the sync text does give (per-topic results with error code and nullable message), and may change
 * when KIP-1279 fixes it. The per-topic DesiredMirrorType, EffectiveMirrorType and RecoveryPending fields are
 * the ones the sync mirroring text adds, with its defaults; StatusMessage carries the annotation that text asks
 * for on a topic released by the source, and the per-partition DestinationOffset is the destination log end
 * offset the text says operators compare when choosing a failover target. Each mirror also carries its
 * definition (source bootstrap servers, include and exclude regexes) and each partition its leader, the source
 * high watermark last seen and its last mirroring error, for the cluster mirrors command.
 */
public final class DescribeClusterMirrorsResponseData extends MirrorStruct implements ApiMessage
{
    private int throttleTimeMs = 0;
    private short errorCode = (short)0;
    private String errorMessage = null;
    private List<MirrorDescription> mirrors = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS.id();
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public DescribeClusterMirrorsResponseData setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return this;
    }

    /** The top-level error code, or 0 if there was no error. */
    public short errorCode()
    {
        return errorCode;
    }

    public DescribeClusterMirrorsResponseData setErrorCode(final short value)
    {
        this.errorCode = value;
        return this;
    }

    /** The top-level error message, or null if there was no error. Nullable. */
    public String errorMessage()
    {
        return errorMessage;
    }

    public DescribeClusterMirrorsResponseData setErrorMessage(final String value)
    {
        this.errorMessage = value;
        return this;
    }

    /** The Mirrors array, each element: one mirror and its topics. */
    public List<MirrorDescription> mirrors()
    {
        return mirrors;
    }

    public DescribeClusterMirrorsResponseData setMirrors(final List<MirrorDescription> value)
    {
        this.mirrors = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, "DescribeClusterMirrorsResponse.ThrottleTimeMs");
        errorCode = WireCodec.readInt16(readable, "DescribeClusterMirrorsResponse.ErrorCode");
        errorMessage = WireCodec.readCompactNullableString(readable, "DescribeClusterMirrorsResponse.ErrorMessage");
        mirrors = readStructs(readable, "DescribeClusterMirrorsResponse.Mirrors", MirrorDescription::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writable.writeShort(errorCode);
        WireCodec.writeCompactNullableString(writable, errorMessage, "DescribeClusterMirrorsResponse.ErrorMessage");
        writeStructs(writable, mirrors, "DescribeClusterMirrorsResponse.Mirrors");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + 2
            + WireCodec.sizeOfCompactNullableString(errorMessage)
            + sizeOfStructs(mirrors);
    }

    @Override
    protected DescribeClusterMirrorsResponseData newInstance()
    {
        return new DescribeClusterMirrorsResponseData();
    }

    @Override
    protected String fieldsToString()
    {
        return "throttleTimeMs=" + throttleTimeMs + ", errorCode=" + errorCode + ", errorMessage=" + errorMessage
            + ", mirrors=" + mirrors;
    }

    /** One mirror and its topics. */
    public static final class MirrorDescription extends MirrorStruct
    {
        private String mirrorName = "";
        private short errorCode = (short)0;
        private String errorMessage = null;
        private List<MirrorTopic> topics = new ArrayList<>(0);
        private String sourceBootstrapServers = "";
        private List<String> includeTopics = new ArrayList<>(0);
        private List<String> excludeTopics = new ArrayList<>(0);
        private List<String> mirrorConfigs = new ArrayList<>(0);

        /** The tag of MirrorConfigs. */
        public static final int MIRROR_CONFIGS_TAG = 0;

        /** The cluster mirror name. */
        public String mirrorName()
        {
            return mirrorName;
        }

        public MirrorDescription setMirrorName(final String value)
        {
            this.mirrorName = value;
            return this;
        }

        /** The error code for this mirror, or 0 if there was no error. */
        public short errorCode()
        {
            return errorCode;
        }

        public MirrorDescription setErrorCode(final short value)
        {
            this.errorCode = value;
            return this;
        }

        /** The error message for this mirror, or null if there was no error. Nullable. */
        public String errorMessage()
        {
            return errorMessage;
        }

        public MirrorDescription setErrorMessage(final String value)
        {
            this.errorMessage = value;
            return this;
        }

        /** The Topics array, each element: the mirror state of one topic. */
        public List<MirrorTopic> topics()
        {
            return topics;
        }

        public MirrorDescription setTopics(final List<MirrorTopic> value)
        {
            this.topics = value;
            return this;
        }

        /** The source cluster's bootstrap servers, as the mirror was created with. */
        public String sourceBootstrapServers()
        {
            return sourceBootstrapServers;
        }

        public MirrorDescription setSourceBootstrapServers(final String value)
        {
            this.sourceBootstrapServers = value;
            return this;
        }

        /** The regexes of source topic names the mirror includes. */
        public List<String> includeTopics()
        {
            return includeTopics;
        }

        public MirrorDescription setIncludeTopics(final List<String> value)
        {
            this.includeTopics = value;
            return this;
        }

        /** The regexes of source topic names the mirror excludes. */
        public List<String> excludeTopics()
        {
            return excludeTopics;
        }

        public MirrorDescription setExcludeTopics(final List<String> value)
        {
            this.excludeTopics = value;
            return this;
        }

        /** The mirror's own settings, each {@code NAME=VALUE} (tagged; absent when the mirror has none). */
        public List<String> mirrorConfigs()
        {
            return mirrorConfigs;
        }

        public MirrorDescription setMirrorConfigs(final List<String> value)
        {
            this.mirrorConfigs = value;
            return this;
        }

        @Override
        protected boolean readKnownTaggedField(final int tag, final Readable data)
        {
            if (tag != MIRROR_CONFIGS_TAG)
            {
                return false;
            }
            mirrorConfigs = WireCodec.readCompactStringArray(data,
                "DescribeClusterMirrorsResponse.Mirrors.MirrorConfigs", false);
            return true;
        }

        @Override
        protected List<RawTaggedField> knownTaggedFields()
        {
            if (mirrorConfigs == null || mirrorConfigs.isEmpty())
            {
                return List.of();
            }
            return List.of(encodeStringsAsTaggedField(MIRROR_CONFIGS_TAG, mirrorConfigs,
                "DescribeClusterMirrorsResponse.Mirrors.MirrorConfigs"));
        }

        @Override
        protected void resetKnownTaggedFields()
        {
            mirrorConfigs = new ArrayList<>(0);
        }

        @Override
        protected void readFields(final Readable readable)
        {
            mirrorName = WireCodec.readCompactString(readable, "DescribeClusterMirrorsResponse.Mirrors.MirrorName");
            errorCode = WireCodec.readInt16(readable, "DescribeClusterMirrorsResponse.Mirrors.ErrorCode");
            errorMessage = WireCodec.readCompactNullableString(readable,
                "DescribeClusterMirrorsResponse.Mirrors.ErrorMessage");
            topics = readStructs(readable, "DescribeClusterMirrorsResponse.Mirrors.Topics", MirrorTopic::new);
            sourceBootstrapServers = WireCodec.readCompactString(readable,
                "DescribeClusterMirrorsResponse.Mirrors.SourceBootstrapServers");
            includeTopics = WireCodec.readCompactStringArray(readable,
                "DescribeClusterMirrorsResponse.Mirrors.IncludeTopics", false);
            excludeTopics = WireCodec.readCompactStringArray(readable,
                "DescribeClusterMirrorsResponse.Mirrors.ExcludeTopics", false);
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, mirrorName, "DescribeClusterMirrorsResponse.Mirrors.MirrorName");
            writable.writeShort(errorCode);
            WireCodec.writeCompactNullableString(writable, errorMessage,
                "DescribeClusterMirrorsResponse.Mirrors.ErrorMessage");
            writeStructs(writable, topics, "DescribeClusterMirrorsResponse.Mirrors.Topics");
            WireCodec.writeCompactString(writable, sourceBootstrapServers,
                "DescribeClusterMirrorsResponse.Mirrors.SourceBootstrapServers");
            WireCodec.writeCompactStringArray(writable, includeTopics,
                "DescribeClusterMirrorsResponse.Mirrors.IncludeTopics", false);
            WireCodec.writeCompactStringArray(writable, excludeTopics,
                "DescribeClusterMirrorsResponse.Mirrors.ExcludeTopics", false);
        }

        @Override
        protected int fieldsSize()
        {
            return WireCodec.sizeOfCompactNullableString(mirrorName)
                + 2
                + WireCodec.sizeOfCompactNullableString(errorMessage)
                + sizeOfStructs(topics)
                + WireCodec.sizeOfCompactNullableString(sourceBootstrapServers)
                + WireCodec.sizeOfCompactStringArray(includeTopics)
                + WireCodec.sizeOfCompactStringArray(excludeTopics);
        }

        @Override
        protected MirrorDescription newInstance()
        {
            return new MirrorDescription();
        }

        @Override
        protected String fieldsToString()
        {
            return "mirrorName=" + mirrorName + ", errorCode=" + errorCode + ", errorMessage=" + errorMessage
                + ", topics=" + topics + ", sourceBootstrapServers=" + sourceBootstrapServers + ", includeTopics="
                + includeTopics + ", excludeTopics=" + excludeTopics + ", mirrorConfigs=" + mirrorConfigs;
        }
    }

    /** The mirror state of one topic. */
    public static final class MirrorTopic extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private byte desiredMirrorType = (byte)0;
        private byte effectiveMirrorType = (byte)0;
        private boolean recoveryPending = false;
        private String statusMessage = null;
        private List<MirrorPartition> partitions = new ArrayList<>(0);

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public MirrorTopic setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The topic name. */
        public String topicName()
        {
            return topicName;
        }

        public MirrorTopic setTopicName(final String value)
        {
            this.topicName = value;
            return this;
        }

        /** The operator-requested mirror type: 0 = ASYNC, 1 = SYNC. Default 0. */
        public byte desiredMirrorType()
        {
            return desiredMirrorType;
        }

        public MirrorTopic setDesiredMirrorType(final byte value)
        {
            this.desiredMirrorType = value;
            return this;
        }

        /** The currently effective mirror type: 0 = ASYNC, 1 = SYNC. Default 0. */
        public byte effectiveMirrorType()
        {
            return effectiveMirrorType;
        }

        public MirrorTopic setEffectiveMirrorType(final byte value)
        {
            this.effectiveMirrorType = value;
            return this;
        }

        /** True while a recovery promotion is pending after a source-side release. Default false. */
        public boolean recoveryPending()
        {
            return recoveryPending;
        }

        public MirrorTopic setRecoveryPending(final boolean value)
        {
            this.recoveryPending = value;
            return this;
        }

        /**
         * An operator-facing annotation, such as a release by the source with recovery in flight, or null. Nullable.
         */
        public String statusMessage()
        {
            return statusMessage;
        }

        public MirrorTopic setStatusMessage(final String value)
        {
            this.statusMessage = value;
            return this;
        }

        /** The Partitions array, each element: the mirror state of one partition. */
        public List<MirrorPartition> partitions()
        {
            return partitions;
        }

        public MirrorTopic setPartitions(final List<MirrorPartition> value)
        {
            this.partitions = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "DescribeClusterMirrorsResponse.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "DescribeClusterMirrorsResponse.Topics.TopicName");
            desiredMirrorType = WireCodec.readInt8(readable, "DescribeClusterMirrorsResponse.Topics.DesiredMirrorType");
            effectiveMirrorType = WireCodec.readInt8(readable,
                "DescribeClusterMirrorsResponse.Topics.EffectiveMirrorType");
            recoveryPending = WireCodec.readBool(readable, "DescribeClusterMirrorsResponse.Topics.RecoveryPending");
            statusMessage = WireCodec.readCompactNullableString(readable,
                "DescribeClusterMirrorsResponse.Topics.StatusMessage");
            partitions = readStructs(readable, "DescribeClusterMirrorsResponse.Topics.Partitions",
                MirrorPartition::new);
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "DescribeClusterMirrorsResponse.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "DescribeClusterMirrorsResponse.Topics.TopicName");
            writable.writeByte(desiredMirrorType);
            writable.writeByte(effectiveMirrorType);
            WireCodec.writeBool(writable, recoveryPending);
            WireCodec.writeCompactNullableString(writable, statusMessage,
                "DescribeClusterMirrorsResponse.Topics.StatusMessage");
            writeStructs(writable, partitions, "DescribeClusterMirrorsResponse.Topics.Partitions");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + 1
                + 1
                + 1
                + WireCodec.sizeOfCompactNullableString(statusMessage)
                + sizeOfStructs(partitions);
        }

        @Override
        protected MirrorTopic newInstance()
        {
            return new MirrorTopic();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName + ", desiredMirrorType=" + desiredMirrorType
                + ", effectiveMirrorType=" + effectiveMirrorType + ", recoveryPending=" + recoveryPending
                + ", statusMessage=" + statusMessage + ", partitions=" + partitions;
        }
    }

    /** The mirror state of one partition. */
    public static final class MirrorPartition extends MirrorStruct
    {
        /** The tag of the SyncFailingForMs tagged field. */
        public static final int SYNC_FAILING_FOR_MS_TAG = 0;

        private int partitionIndex = 0;
        private byte state = (byte)0;
        private long destinationOffset = -1L;
        private long lag = -1L;
        private int leaderId = -1;
        private long sourceOffset = -1L;
        private short lastErrorCode = (short)0;
        private String lastErrorMessage = null;
        private long syncFailingForMs = -1L;

        /** The partition index. */
        public int partitionIndex()
        {
            return partitionIndex;
        }

        public MirrorPartition setPartitionIndex(final int value)
        {
            this.partitionIndex = value;
            return this;
        }

        /**
         * The mirror partition state: 0 = UNKNOWN, 1 = PREPARING, 2 = MIRRORING, 3 = STOPPING, 4 = STOPPED, 5 = FAILED
         * (the KIP-1279 lifecycle, in its order).
         */
        public byte state()
        {
            return state;
        }

        public MirrorPartition setState(final byte value)
        {
            this.state = value;
            return this;
        }

        /** The destination log end offset, or -1 if unknown. Default -1. */
        public long destinationOffset()
        {
            return destinationOffset;
        }

        public MirrorPartition setDestinationOffset(final long value)
        {
            this.destinationOffset = value;
            return this;
        }

        /** The records the destination is behind the source, or -1 if unknown. Default -1. */
        public long lag()
        {
            return lag;
        }

        public MirrorPartition setLag(final long value)
        {
            this.lag = value;
            return this;
        }

        /** The broker id of the destination partition's leader, or -1 if none. Default -1. */
        public int leaderId()
        {
            return leaderId;
        }

        public MirrorPartition setLeaderId(final int value)
        {
            this.leaderId = value;
            return this;
        }

        /** The source partition's high watermark as last seen by the mirror fetcher, or -1 if unknown. Default -1. */
        public long sourceOffset()
        {
            return sourceOffset;
        }

        public MirrorPartition setSourceOffset(final long value)
        {
            this.sourceOffset = value;
            return this;
        }

        /** The error code of the partition's last mirroring failure, or 0 if none. Default 0. */
        public short lastErrorCode()
        {
            return lastErrorCode;
        }

        public MirrorPartition setLastErrorCode(final short value)
        {
            this.lastErrorCode = value;
            return this;
        }

        /** The message of the partition's last mirroring failure, or null if none. Nullable. */
        public String lastErrorMessage()
        {
            return lastErrorMessage;
        }

        public MirrorPartition setLastErrorMessage(final String value)
        {
            this.lastErrorMessage = value;
            return this;
        }

        /**
         * Tagged field 0 ({@code {"name": "SyncFailingForMs", "type": "int64", "tag": 0, "default": "-1"}}): how long
         * every sync report of this partition has been failing (INVALID_SYNC_REGISTRATION or
         * MIRROR_REGISTRATION_PROPAGATING), as its leader measured it when answering, -1 while they succeed. A
         * duration rather than a time, so brokers' clocks need not agree; written only when not -1.
         */
        public long syncFailingForMs()
        {
            return syncFailingForMs;
        }

        public MirrorPartition setSyncFailingForMs(final long value)
        {
            this.syncFailingForMs = value;
            return this;
        }

        @Override
        protected boolean readKnownTaggedField(final int tag, final Readable data)
        {
            if (tag != SYNC_FAILING_FOR_MS_TAG)
            {
                return false;
            }
            syncFailingForMs = WireCodec.readInt64(data, "DescribeClusterMirrorsResponse.Partitions.SyncFailingForMs");
            return true;
        }

        @Override
        protected List<RawTaggedField> knownTaggedFields()
        {
            if (syncFailingForMs == -1L)
            {
                return List.of();
            }
            return List.of(new RawTaggedField(SYNC_FAILING_FOR_MS_TAG,
                java.nio.ByteBuffer.allocate(8).putLong(syncFailingForMs).array()));
        }

        @Override
        protected void resetKnownTaggedFields()
        {
            syncFailingForMs = -1L;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            partitionIndex = WireCodec.readInt32(readable, "DescribeClusterMirrorsResponse.Partitions.PartitionIndex");
            state = WireCodec.readInt8(readable, "DescribeClusterMirrorsResponse.Partitions.State");
            destinationOffset = WireCodec.readInt64(readable,
                "DescribeClusterMirrorsResponse.Partitions.DestinationOffset");
            lag = WireCodec.readInt64(readable, "DescribeClusterMirrorsResponse.Partitions.Lag");
            leaderId = WireCodec.readInt32(readable, "DescribeClusterMirrorsResponse.Partitions.LeaderId");
            sourceOffset = WireCodec.readInt64(readable, "DescribeClusterMirrorsResponse.Partitions.SourceOffset");
            lastErrorCode = WireCodec.readInt16(readable, "DescribeClusterMirrorsResponse.Partitions.LastErrorCode");
            lastErrorMessage = WireCodec.readCompactNullableString(readable,
                "DescribeClusterMirrorsResponse.Partitions.LastErrorMessage");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            writable.writeInt(partitionIndex);
            writable.writeByte(state);
            writable.writeLong(destinationOffset);
            writable.writeLong(lag);
            writable.writeInt(leaderId);
            writable.writeLong(sourceOffset);
            writable.writeShort(lastErrorCode);
            WireCodec.writeCompactNullableString(writable, lastErrorMessage,
                "DescribeClusterMirrorsResponse.Partitions.LastErrorMessage");
        }

        @Override
        protected int fieldsSize()
        {
            return 4
                + 1
                + 8
                + 8
                + 4
                + 8
                + 2
                + WireCodec.sizeOfCompactNullableString(lastErrorMessage);
        }

        @Override
        protected MirrorPartition newInstance()
        {
            return new MirrorPartition();
        }

        @Override
        protected String fieldsToString()
        {
            return "partitionIndex=" + partitionIndex + ", state=" + state + ", destinationOffset="
                + destinationOffset + ", lag=" + lag + ", leaderId=" + leaderId + ", sourceOffset=" + sourceOffset
                + ", lastErrorCode=" + lastErrorCode + ", lastErrorMessage=" + lastErrorMessage
                + ", syncFailingForMs=" + syncFailingForMs;
        }
    }
}
