package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The AddTopicsToMirror request (api key 95, version 0, flexible), which asks the destination cluster to mirror
 * topics, each with its desired mirror type. Not thread-safe.
 *
 * <p>Version 0 with the MirrorType field added by the sync mirroring text; the schema is the one the sync
 * cluster mirroring text gives, field for field. Because that layout is fixed, regex selection of topics is
 * added here as a top-level tagged field, {@code {"name": "TopicPatterns", "type": "[]TopicPattern",
 * "versions": "0+", "taggedVersions": "0+", "tag": 0}}: the destination adds every source topic whose name
 * matches a pattern (Java regex, whole name), now and as matching topics appear. The field is written only
 * when non-empty, so a request without patterns encodes byte for byte as the spec's version 0, and a peer that
 * does not know the tag skips it.
 */
public final class AddTopicsToMirrorRequestData extends MirrorStruct implements ApiMessage
{
    /** The tag of the TopicPatterns tagged field. */
    public static final int TOPIC_PATTERNS_TAG = 0;

    private List<TopicState> topics = new ArrayList<>(0);
    private List<TopicPattern> topicPatterns = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.ADD_TOPICS_TO_MIRROR.id();
    }

    /** The Topics array, each element: the state of one topic to add to a mirror. */
    public List<TopicState> topics()
    {
        return topics;
    }

    public AddTopicsToMirrorRequestData setTopics(final List<TopicState> value)
    {
        this.topics = value;
        return this;
    }

    /** The TopicPatterns tagged field (tag 0), each element: a regex of source topics to add. Default empty. */
    public List<TopicPattern> topicPatterns()
    {
        return topicPatterns;
    }

    public AddTopicsToMirrorRequestData setTopicPatterns(final List<TopicPattern> value)
    {
        this.topicPatterns = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        topics = readStructs(readable, "AddTopicsToMirrorRequest.Topics", TopicState::new);
    }

    @Override
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        if (tag != TOPIC_PATTERNS_TAG)
        {
            return false;
        }
        topicPatterns = readStructs(data, "AddTopicsToMirrorRequest.TopicPatterns", TopicPattern::new);
        return true;
    }

    @Override
    protected List<RawTaggedField> knownTaggedFields()
    {
        if (topicPatterns == null || topicPatterns.isEmpty())
        {
            return List.of();
        }
        return List.of(encodeStructsAsTaggedField(TOPIC_PATTERNS_TAG, topicPatterns,
            "AddTopicsToMirrorRequest.TopicPatterns"));
    }

    @Override
    protected void resetKnownTaggedFields()
    {
        topicPatterns = new ArrayList<>(0);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writeStructs(writable, topics, "AddTopicsToMirrorRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return sizeOfStructs(topics);
    }

    @Override
    protected AddTopicsToMirrorRequestData newInstance()
    {
        return new AddTopicsToMirrorRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "topics=" + topics + ", topicPatterns=" + topicPatterns;
    }

    /** A regex of source topic names to add to a mirror, with the mirror and the desired mirror type. */
    public static final class TopicPattern extends MirrorStruct
    {
        private String pattern = "";
        private String mirrorName = "";
        private byte mirrorType = (byte)0;

        /** The Java regular expression a whole source topic name must match. */
        public String pattern()
        {
            return pattern;
        }

        public TopicPattern setPattern(final String value)
        {
            this.pattern = value;
            return this;
        }

        /** The cluster mirror name. */
        public String mirrorName()
        {
            return mirrorName;
        }

        public TopicPattern setMirrorName(final String value)
        {
            this.mirrorName = value;
            return this;
        }

        /** The desired mirror type of the matching topics: 0 = ASYNC, 1 = SYNC (see MirrorType). Default 0. */
        public byte mirrorType()
        {
            return mirrorType;
        }

        public TopicPattern setMirrorType(final byte value)
        {
            this.mirrorType = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            pattern = WireCodec.readCompactString(readable, "AddTopicsToMirrorRequest.TopicPatterns.Pattern");
            mirrorName = WireCodec.readCompactString(readable, "AddTopicsToMirrorRequest.TopicPatterns.MirrorName");
            mirrorType = WireCodec.readInt8(readable, "AddTopicsToMirrorRequest.TopicPatterns.MirrorType");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, pattern, "AddTopicsToMirrorRequest.TopicPatterns.Pattern");
            WireCodec.writeCompactString(writable, mirrorName, "AddTopicsToMirrorRequest.TopicPatterns.MirrorName");
            writable.writeByte(mirrorType);
        }

        @Override
        protected int fieldsSize()
        {
            return WireCodec.sizeOfCompactNullableString(pattern)
                + WireCodec.sizeOfCompactNullableString(mirrorName)
                + 1;
        }

        @Override
        protected TopicPattern newInstance()
        {
            return new TopicPattern();
        }

        @Override
        protected String fieldsToString()
        {
            return "pattern=" + pattern + ", mirrorName=" + mirrorName + ", mirrorType=" + mirrorType;
        }
    }

    /** The state of one topic to add to a mirror. */
    public static final class TopicState extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private String mirrorName = null;
        private byte mirrorType = (byte)0;

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

        /** The cluster mirror name. Nullable. */
        public String mirrorName()
        {
            return mirrorName;
        }

        public TopicState setMirrorName(final String value)
        {
            this.mirrorName = value;
            return this;
        }

        /**
         * The desired mirror type: 0 = ASYNC, 1 = SYNC (see MirrorType). The topic starts in effective ASYNC and
         * auto-promotes once lag reaches zero. Default 0.
         */
        public byte mirrorType()
        {
            return mirrorType;
        }

        public TopicState setMirrorType(final byte value)
        {
            this.mirrorType = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "AddTopicsToMirrorRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "AddTopicsToMirrorRequest.Topics.TopicName");
            mirrorName = WireCodec.readCompactNullableString(readable, "AddTopicsToMirrorRequest.Topics.MirrorName");
            mirrorType = WireCodec.readInt8(readable, "AddTopicsToMirrorRequest.Topics.MirrorType");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "AddTopicsToMirrorRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "AddTopicsToMirrorRequest.Topics.TopicName");
            WireCodec.writeCompactNullableString(writable, mirrorName, "AddTopicsToMirrorRequest.Topics.MirrorName");
            writable.writeByte(mirrorType);
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + WireCodec.sizeOfCompactNullableString(mirrorName)
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
            return "topicId=" + topicId + ", topicName=" + topicName + ", mirrorName=" + mirrorName + ", mirrorType="
                + mirrorType;
        }
    }
}
