package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The UnregisterMirrorSyncTopic request (version 0, flexible), sent by the destination cluster (or an operator
 * releasing sync on the source) to unregister topics from sync mirroring. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field, plus one top-level tagged
 * field, {@code {"name": "Release", "type": "bool", "versions": "0+", "taggedVersions": "0+", "tag": 0,
 * "default": "false"}}: true when an operator on the source releases the sync registration ({@code --release-sync},
 * which leaves the sticky Released marker and needs ALTER on CLUSTER_MIRRORS), false for the destination's clean
 * unregister (CLUSTER_ACTION, no marker). The text's schema has no field that tells the two apart. It is written
 * only when true, so a clean unregister encodes byte for byte as the spec's version 0, and a peer that does not know
 * the tag skips it. With Release set, an empty Topics array means every topic registered under the mirror name.
 * Two more, for the source cluster's own hops and written only when true, as RegisterMirrorSyncTopic has them:
 * {@code LedgerOwnerOnly} (tag 1: answer as the leader of the ledger's {@code __mirror_state} partition or
 * NOT_COORDINATOR, never pass it on) and {@code RegistrationChangeOnly} (tag 2: the controller commits the
 * registration change of the named topics and decides nothing else). And {@code DriverEpoch} (tag 3, int64,
 * default -1, written only when set): the destination driver's request number, as on RegisterMirrorSyncTopic.
 */
public final class UnregisterMirrorSyncTopicRequestData extends MirrorStruct implements ApiMessage
{
    /** The tag of the Release tagged field. */
    public static final int RELEASE_TAG = 0;
    /** The tag of the LedgerOwnerOnly tagged field. */
    public static final int LEDGER_OWNER_ONLY_TAG = 1;
    /** The tag of the RegistrationChangeOnly tagged field. */
    public static final int REGISTRATION_CHANGE_ONLY_TAG = 2;
    /** The tag of the DriverEpoch tagged field. */
    public static final int DRIVER_EPOCH_TAG = 3;

    private String mirrorName = "";
    private List<TopicState> topics = new ArrayList<>(0);
    private boolean release = false;
    private boolean ledgerOwnerOnly = false;
    private boolean registrationChangeOnly = false;
    private long driverEpoch = -1L;

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC.id();
    }

    /** The cluster mirror name. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public UnregisterMirrorSyncTopicRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The Topics array, each element: one topic to unregister. */
    public List<TopicState> topics()
    {
        return topics;
    }

    public UnregisterMirrorSyncTopicRequestData setTopics(final List<TopicState> value)
    {
        this.topics = value;
        return this;
    }

    /** The Release tagged field (tag 0): true for an operator's source-side release. Default false. */
    public boolean release()
    {
        return release;
    }

    public UnregisterMirrorSyncTopicRequestData setRelease(final boolean value)
    {
        this.release = value;
        return this;
    }

    /** Source broker to the ledger's owner: answer as the owner or NOT_COORDINATOR, never forward. Default false. */
    public boolean ledgerOwnerOnly()
    {
        return ledgerOwnerOnly;
    }

    public UnregisterMirrorSyncTopicRequestData setLedgerOwnerOnly(final boolean value)
    {
        this.ledgerOwnerOnly = value;
        return this;
    }

    /** Ledger owner to the controller: commit the registration change the ledger applied. Default false. */
    public boolean registrationChangeOnly()
    {
        return registrationChangeOnly;
    }

    public UnregisterMirrorSyncTopicRequestData setRegistrationChangeOnly(final boolean value)
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

    public UnregisterMirrorSyncTopicRequestData setDriverEpoch(final long value)
    {
        this.driverEpoch = value;
        return this;
    }

    @Override
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        switch (tag)
        {
            case RELEASE_TAG:
                release = WireCodec.readBool(data, "UnregisterMirrorSyncTopicRequest.Release");
                return true;
            case LEDGER_OWNER_ONLY_TAG:
                ledgerOwnerOnly = WireCodec.readBool(data, "UnregisterMirrorSyncTopicRequest.LedgerOwnerOnly");
                return true;
            case DRIVER_EPOCH_TAG:
                driverEpoch = WireCodec.readInt64(data, "UnregisterMirrorSyncTopicRequest.DriverEpoch");
                return true;
            case REGISTRATION_CHANGE_ONLY_TAG:
                registrationChangeOnly = WireCodec.readBool(data,
                    "UnregisterMirrorSyncTopicRequest.RegistrationChangeOnly");
                return true;
            default:
                return false;
        }
    }

    @Override
    protected List<RawTaggedField> knownTaggedFields()
    {
        final List<RawTaggedField> fields = new ArrayList<>(4);
        if (release)
        {
            fields.add(new RawTaggedField(RELEASE_TAG, new byte[] {1}));
        }
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
        release = false;
        ledgerOwnerOnly = false;
        registrationChangeOnly = false;
        driverEpoch = -1L;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "UnregisterMirrorSyncTopicRequest.MirrorName");
        topics = readStructs(readable, "UnregisterMirrorSyncTopicRequest.Topics", TopicState::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "UnregisterMirrorSyncTopicRequest.MirrorName");
        writeStructs(writable, topics, "UnregisterMirrorSyncTopicRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + sizeOfStructs(topics);
    }

    @Override
    protected UnregisterMirrorSyncTopicRequestData newInstance()
    {
        return new UnregisterMirrorSyncTopicRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName + ", topics=" + topics + ", release=" + release + ", ledgerOwnerOnly=" +
            ledgerOwnerOnly + ", registrationChangeOnly=" + registrationChangeOnly + ", driverEpoch=" + driverEpoch;
    }

    /** One topic to unregister. */
    public static final class TopicState extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";

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

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "UnregisterMirrorSyncTopicRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "UnregisterMirrorSyncTopicRequest.Topics.TopicName");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "UnregisterMirrorSyncTopicRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "UnregisterMirrorSyncTopicRequest.Topics.TopicName");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName);
        }

        @Override
        protected TopicState newInstance()
        {
            return new TopicState();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName;
        }
    }
}
