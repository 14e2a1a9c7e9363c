package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The AlterMirrorTopicType request (version 0, flexible), which sets the desired mirror type of topics in a
 * mirror: promotion to SYNC is deferred until lag reaches zero, demotion to ASYNC is immediate. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field, plus two top-level tagged
 * fields that only brokers of the destination cluster set when they pass the request on among themselves, as
 * DescribeClusterMirrors' {@code LocalPartitionsOnly} does: {@code {"name": "LocalPartitionsOnly", "type": "bool",
 * "tag": 0}} (apply the desired type to the partitions the receiving broker leads and answer for those only) and
 * {@code {"name": "Effective", "type": "bool", "tag": 2}} (to the controller node: commit the topics' effective
 * mirror type, MirrorTopicTypeChangeRecord, rather than the desired one). Both are written only when true, so an
 * operator's request encodes byte for byte as the spec's version 0. With Effective, {@code {"name": "DriverEpoch",
 * "type": "int64", "tag": 3, "default": "-1"}} numbers a commit of the topic's sync driver (written when set).
 */
public final class AlterMirrorTopicTypeRequestData extends MirrorStruct implements ApiMessage
{
    /** The tag of the LocalPartitionsOnly tagged field. */
    public static final int LOCAL_PARTITIONS_ONLY_TAG = 0;
    /** The tag of the Effective tagged field. */
    public static final int EFFECTIVE_TAG = 2;
    /** The tag of the DriverEpoch tagged field. */
    public static final int DRIVER_EPOCH_TAG = 3;

    private String mirrorName = "";
    private List<AlterMirrorTopic> topics = new ArrayList<>(0);
    private boolean localPartitionsOnly = false;
    private boolean effective = false;
    private long driverEpoch = -1L;

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE.id();
    }

    /** The cluster mirror name. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public AlterMirrorTopicTypeRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The Topics array, each element: one topic and its desired mirror type. */
    public List<AlterMirrorTopic> topics()
    {
        return topics;
    }

    public AlterMirrorTopicTypeRequestData setTopics(final List<AlterMirrorTopic> value)
    {
        this.topics = value;
        return this;
    }

    /** Broker to broker: apply to the partitions the receiver leads, answer for those only. Default false. */
    public boolean localPartitionsOnly()
    {
        return localPartitionsOnly;
    }

    public AlterMirrorTopicTypeRequestData setLocalPartitionsOnly(final boolean value)
    {
        this.localPartitionsOnly = value;
        return this;
    }

    /** Broker to controller: commit the effective mirror type of the topics. Default false. */
    public boolean effective()
    {
        return effective;
    }

    public AlterMirrorTopicTypeRequestData setEffective(final boolean value)
    {
        this.effective = value;
        return this;
    }

    /**
     * With Effective: the topic's sync driver numbers the commit as its Register and Unregister (-1: not the driver's
     * commit), so the controller refuses one that arrives after a newer one. Written only when set.
     */
    public long driverEpoch()
    {
        return driverEpoch;
    }

    public AlterMirrorTopicTypeRequestData setDriverEpoch(final long value)
    {
        this.driverEpoch = value;
        return this;
    }

    @Override
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        if (tag == DRIVER_EPOCH_TAG)
        {
            driverEpoch = WireCodec.readInt64(data, "AlterMirrorTopicTypeRequest.DriverEpoch");
            return true;
        }
        if (tag == LOCAL_PARTITIONS_ONLY_TAG)
        {
            localPartitionsOnly = WireCodec.readBool(data, "AlterMirrorTopicTypeRequest.LocalPartitionsOnly");
            return true;
        }
        if (tag == EFFECTIVE_TAG)
        {
            effective = WireCodec.readBool(data, "AlterMirrorTopicTypeRequest.Effective");
            return true;
        }
        return false;
    }

    @Override
    protected List<RawTaggedField> knownTaggedFields()
    {
        final List<RawTaggedField> fields = new ArrayList<>(3);
        if (localPartitionsOnly)
        {
            fields.add(new RawTaggedField(LOCAL_PARTITIONS_ONLY_TAG, new byte[] {1}));
        }
        if (effective)
        {
            fields.add(new RawTaggedField(EFFECTIVE_TAG, new byte[] {1}));
        }
        if (driverEpoch >= 0)
        {
            fields.add(new RawTaggedField(DRIVER_EPOCH_TAG, WireCodec.int64Bytes(driverEpoch)));
        }
        return fields;
    }

    @Override
    protected void resetKnownTaggedFields()
    {
        localPartitionsOnly = false;
        effective = false;
        driverEpoch = -1L;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "AlterMirrorTopicTypeRequest.MirrorName");
        topics = readStructs(readable, "AlterMirrorTopicTypeRequest.Topics", AlterMirrorTopic::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "AlterMirrorTopicTypeRequest.MirrorName");
        writeStructs(writable, topics, "AlterMirrorTopicTypeRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + sizeOfStructs(topics);
    }

    @Override
    protected AlterMirrorTopicTypeRequestData newInstance()
    {
        return new AlterMirrorTopicTypeRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName + ", topics=" + topics + ", localPartitionsOnly=" + localPartitionsOnly
            + ", effective=" + effective + ", driverEpoch=" + driverEpoch;
    }

    /** One topic and its desired mirror type. */
    public static final class AlterMirrorTopic extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private byte mirrorType = (byte)0;

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public AlterMirrorTopic setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The topic name. */
        public String topicName()
        {
            return topicName;
        }

        public AlterMirrorTopic setTopicName(final String value)
        {
            this.topicName = value;
            return this;
        }

        /** The desired mirror type: 0 = ASYNC, 1 = SYNC (see MirrorType). */
        public byte mirrorType()
        {
            return mirrorType;
        }

        public AlterMirrorTopic setMirrorType(final byte value)
        {
            this.mirrorType = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "AlterMirrorTopicTypeRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "AlterMirrorTopicTypeRequest.Topics.TopicName");
            mirrorType = WireCodec.readInt8(readable, "AlterMirrorTopicTypeRequest.Topics.MirrorType");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "AlterMirrorTopicTypeRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "AlterMirrorTopicTypeRequest.Topics.TopicName");
            writable.writeByte(mirrorType);
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + 1;
        }

        @Override
        protected AlterMirrorTopic newInstance()
        {
            return new AlterMirrorTopic();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName + ", mirrorType=" + mirrorType;
        }
    }
}
