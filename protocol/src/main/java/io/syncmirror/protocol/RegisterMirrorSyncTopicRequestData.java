package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The RegisterMirrorSyncTopic request (version 0, flexible), sent by the destination cluster to the source to
 * register topics for sync mirroring. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field, plus two top-level tagged
 * fields for the source cluster's own hops, both written only when true (a destination's request encodes byte for
 * byte as the spec's version 0, and a peer that does not know the tags skips them): {@code {"name":
 * "LedgerOwnerOnly", "type": "bool", "tag": 0}} (a source broker passed the request on to the leader of the
 * ledger's {@code __mirror_state} partition: answer as that leader or NOT_COORDINATOR, never pass it on again) and
 * {@code {"name": "RegistrationChangeOnly", "type": "bool", "tag": 1}} (the ledger admitted the topics: the
 * controller commits their MirrorSyncRegistrationChange and decides nothing else). A third, {@code {"name":
 * "DriverEpoch", "type": "int64", "tag": 2, "default": "-1"}}, numbers the destination driver's requests so that
 * the source ignores one that arrives after a newer one (written only when set).
 */
public final class RegisterMirrorSyncTopicRequestData extends MirrorStruct implements ApiMessage
{
    /** The tag of the LedgerOwnerOnly tagged field. */
    public static final int LEDGER_OWNER_ONLY_TAG = 0;
    /** The tag of the RegistrationChangeOnly tagged field. */
    public static final int REGISTRATION_CHANGE_ONLY_TAG = 1;
    /** The tag of the DriverEpoch tagged field. */
    public static final int DRIVER_EPOCH_TAG = 2;

    private String mirrorName = "";
    private List<TopicState> topics = new ArrayList<>(0);
    private boolean ledgerOwnerOnly = false;
    private boolean registrationChangeOnly = false;
    private long driverEpoch = -1L;

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC.id();
    }

    /** The cluster mirror name. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public RegisterMirrorSyncTopicRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The Topics array, each element: one topic to register. */
    public List<TopicState> topics()
    {
        return topics;
    }

    public RegisterMirrorSyncTopicRequestData setTopics(final List<TopicState> value)
    {
        this.topics = value;
        return this;
    }

    /** Source broker to the ledger's owner: answer as the owner or NOT_COORDINATOR, never forward. Default false. */
    public boolean ledgerOwnerOnly()
    {
        return ledgerOwnerOnly;
    }

    public RegisterMirrorSyncTopicRequestData setLedgerOwnerOnly(final boolean value)
    {
        this.ledgerOwnerOnly = value;
        return this;
    }

    /** Ledger owner to the controller: commit the registration change the ledger admitted. Default false. */
    public boolean registrationChangeOnly()
    {
        return registrationChangeOnly;
    }

    public RegisterMirrorSyncTopicRequestData setRegistrationChangeOnly(final boolean value)
    {
        this.registrationChangeOnly = value;
        return this;
    }

    /**
     * The driver's request number (its partition 0 leader epoch in the high 32 bits, a counter in the low), -1 when
     * none: the source applies a request only if its number is not below the last one it applied for the topic, so
     * a request that arrives late (after its sender gave up and sent newer ones, or after another broker took the
     * driving over) changes nothing. Written only when set.
     */
    public long driverEpoch()
    {
        return driverEpoch;
    }

    public RegisterMirrorSyncTopicRequestData setDriverEpoch(final long value)
    {
        this.driverEpoch = value;
        return this;
    }

    @Override
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        if (tag == DRIVER_EPOCH_TAG)
        {
            driverEpoch = WireCodec.readInt64(data, "RegisterMirrorSyncTopicRequest.DriverEpoch");
            return true;
        }
        if (tag == LEDGER_OWNER_ONLY_TAG)
        {
            ledgerOwnerOnly = WireCodec.readBool(data, "RegisterMirrorSyncTopicRequest.LedgerOwnerOnly");
            return true;
        }
        if (tag == REGISTRATION_CHANGE_ONLY_TAG)
        {
            registrationChangeOnly = WireCodec.readBool(data, "RegisterMirrorSyncTopicRequest.RegistrationChangeOnly");
            return true;
        }
        return false;
    }

    @Override
    protected List<RawTaggedField> knownTaggedFields()
    {
        final List<RawTaggedField> fields = new ArrayList<>(3);
        if (ledgerOwnerOnly)
        {
            fields.add(new RawTaggedField(LEDGER_OWNER_ONLY_TAG, new byte[] {1}));
        }
        if (registrationChangeOnly)
        {
            fields.add(new RawTaggedField(REGISTRATION_CHANGE_ONLY_TAG, new byte[] {1}));
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
        ledgerOwnerOnly = false;
        registrationChangeOnly = false;
        driverEpoch = -1L;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "RegisterMirrorSyncTopicRequest.MirrorName");
        topics = readStructs(readable, "RegisterMirrorSyncTopicRequest.Topics", TopicState::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "RegisterMirrorSyncTopicRequest.MirrorName");
        writeStructs(writable, topics, "RegisterMirrorSyncTopicRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + sizeOfStructs(topics);
    }

    @Override
    protected RegisterMirrorSyncTopicRequestData newInstance()
    {
        return new RegisterMirrorSyncTopicRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName + ", topics=" + topics + ", ledgerOwnerOnly=" + ledgerOwnerOnly +
            ", registrationChangeOnly=" + registrationChangeOnly + ", driverEpoch=" + driverEpoch;
    }

    /** One topic to register. */
    public static final class TopicState extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private boolean recoveryPromotion = false;

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public TopicState setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The topic name. */
        public String topicName()
        {
            return topicName;
        }

        public TopicState setTopicName(final String value)
        {
            this.topicName = value;
            return this;
        }

        /**
         * True when this entry is a post-release recovery, which lets the source clear a sticky Released marker for
         * this mirror and topic. Default false.
         */
        public boolean recoveryPromotion()
        {
            return recoveryPromotion;
        }

        public TopicState setRecoveryPromotion(final boolean value)
        {
            this.recoveryPromotion = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "RegisterMirrorSyncTopicRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "RegisterMirrorSyncTopicRequest.Topics.TopicName");
            recoveryPromotion = WireCodec.readBool(readable, "RegisterMirrorSyncTopicRequest.Topics.RecoveryPromotion");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "RegisterMirrorSyncTopicRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "RegisterMirrorSyncTopicRequest.Topics.TopicName");
            WireCodec.writeBool(writable, recoveryPromotion);
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + 1;
        }

        @Override
        protected TopicState newInstance()
        {
            return new TopicState();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName + ", recoveryPromotion=" + recoveryPromotion;
        }
    }
}
