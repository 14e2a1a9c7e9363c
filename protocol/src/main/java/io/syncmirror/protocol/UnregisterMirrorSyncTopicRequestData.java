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
 */
public final class UnregisterMirrorSyncTopicRequestData extends MirrorStruct implements ApiMessage
{
    /** The tag of the Release tagged field. */
    public static final int RELEASE_TAG = 0;

    private String mirrorName = "";
    private List<TopicState> topics = new ArrayList<>(0);
    private boolean release = false;

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

    @Override
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        if (tag != RELEASE_TAG)
        {
            return false;
        }
        release = WireCodec.readBool(data, "UnregisterMirrorSyncTopicRequest.Release");
        return true;
    }

    @Override
    protected List<RawTaggedField> knownTaggedFields()
    {
        return release ? List.of(new RawTaggedField(RELEASE_TAG, new byte[] {1})) : List.of();
    }

    @Override
    protected void resetKnownTaggedFields()
    {
        release = false;
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
        return "mirrorName=" + mirrorName + ", topics=" + topics + ", release=" + release;
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
