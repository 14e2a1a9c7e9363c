package io.syncmirror.protocol;

/**
 * The AlterMirrorTopicType response (version 0, flexible), one result per topic. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class AlterMirrorTopicTypeResponseData extends TopicResultsResponseData<AlterMirrorTopicTypeResponseData>
{
    public AlterMirrorTopicTypeResponseData()
    {
        super(MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE);
    }

    @Override
    protected AlterMirrorTopicTypeResponseData newInstance()
    {
        return new AlterMirrorTopicTypeResponseData();
    }
}
