package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The BumpLeaderEpochs request (api key 104, version 0, flexible), sent by a broker to the controller at
 * failover: raise each listed partition's leader epoch to at least a minimum, and the next producer id the
 * controller hands out to at least a minimum. Not thread-safe.
 *
 * <p>Neither mirroring text gives this RPC a schema; the schema here is designed for this project. A mirror
 * partition's records carry the source's leader epochs and producer ids, so once the destination becomes
 * writable its own epochs and producer ids must start above everything mirrored, or fencing and idempotence
 * would confuse the two histories.
 */
public final class BumpLeaderEpochsRequestData extends MirrorStruct implements ApiMessage
{
    private long minNextProducerId = -1L;
    private List<TopicRequest> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.BUMP_LEADER_EPOCHS.id();
    }

    /** The lowest producer id the controller may hand out next, or -1 for no constraint. Default -1. */
    public long minNextProducerId()
    {
        return minNextProducerId;
    }

    public BumpLeaderEpochsRequestData setMinNextProducerId(final long value)
    {
        this.minNextProducerId = value;
        return this;
    }

    /** The Topics array, each element: the partitions of one topic whose leader epochs to raise. */
    public List<TopicRequest> topics()
    {
        return topics;
    }

    public BumpLeaderEpochsRequestData setTopics(final List<TopicRequest> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        minNextProducerId = WireCodec.readInt64(readable, "BumpLeaderEpochsRequest.MinNextProducerId");
        topics = readStructs(readable, "BumpLeaderEpochsRequest.Topics", TopicRequest::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeLong(minNextProducerId);
        writeStructs(writable, topics, "BumpLeaderEpochsRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return 8
            + sizeOfStructs(topics);
    }

    @Override
    protected BumpLeaderEpochsRequestData newInstance()
    {
        return new BumpLeaderEpochsRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "minNextProducerId=" + minNextProducerId + ", topics=" + topics;
    }

    /** The partitions of one topic whose leader epochs to raise. */
    public static final class TopicRequest extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private List<PartitionRequest> partitions = new ArrayList<>(0);

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public TopicRequest setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The Partitions array, each element: one partition and its minimum leader epoch. */
        public List<PartitionRequest> partitions()
        {
            return partitions;
        }

        public TopicRequest setPartitions(final List<PartitionRequest> value)
        {
            this.partitions = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "BumpLeaderEpochsRequest.Topics.TopicId");
            partitions = readStructs(readable, "BumpLeaderEpochsRequest.Topics.Partitions", PartitionRequest::new);
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "BumpLeaderEpochsRequest.Topics.TopicId");
            writeStructs(writable, partitions, "BumpLeaderEpochsRequest.Topics.Partitions");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + sizeOfStructs(partitions);
        }

        @Override
        protected TopicRequest newInstance()
        {
            return new TopicRequest();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", partitions=" + partitions;
        }
    }

    /** One partition and the lowest leader epoch it may have after the bump. */
    public static final class PartitionRequest extends MirrorStruct
    {
        private int partitionIndex = 0;
        private int minLeaderEpoch = 0;

        /** The partition index. */
        public int partitionIndex()
        {
            return partitionIndex;
        }

        public PartitionRequest setPartitionIndex(final int value)
        {
            this.partitionIndex = value;
            return this;
        }

        /** The lowest leader epoch the partition may have once the request succeeds. */
        public int minLeaderEpoch()
        {
            return minLeaderEpoch;
        }

        public PartitionRequest setMinLeaderEpoch(final int value)
        {
            this.minLeaderEpoch = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            partitionIndex = WireCodec.readInt32(readable, "BumpLeaderEpochsRequest.Partitions.PartitionIndex");
            minLeaderEpoch = WireCodec.readInt32(readable, "BumpLeaderEpochsRequest.Partitions.MinLeaderEpoch");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            writable.writeInt(partitionIndex);
            writable.writeInt(minLeaderEpoch);
        }

        @Override
        protected int fieldsSize()
        {
            return 4
                + 4;
        }

        @Override
        protected PartitionRequest newInstance()
        {
            return new PartitionRequest();
        }

        @Override
        protected String fieldsToString()
        {
            return "partitionIndex=" + partitionIndex + ", minLeaderEpoch=" + minLeaderEpoch;
        }
    }
}
