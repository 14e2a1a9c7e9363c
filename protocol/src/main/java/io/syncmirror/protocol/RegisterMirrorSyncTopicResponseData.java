package io.syncmirror.protocol;

/**
 * The RegisterMirrorSyncTopic response (version 0, flexible), one result per topic so the destination can tell
 * admitted topics from rejected ones. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class RegisterMirrorSyncTopicResponseData extends TopicResultsResponseData<RegisterMirrorSyncTopicResponseData>
{
    public RegisterMirrorSyncTopicResponseData()
    {
        super(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC);
    }

    @Override
    protected RegisterMirrorSyncTopicResponseData newInstance()
    {
        return new RegisterMirrorSyncTopicResponseData();
    }
}
