package io.syncmirror.protocol;

/**
 * The RemoveTopicsFromMirror response (version 0, flexible), one result per topic. Not thread-safe.
 *
 * <p>The KIP-1279 text names this RPC without giving its schema; the schema here is designed in the shape of the
 * mirror RPCs the sync text does give (per-topic results with error code and nullable message), and may change
 * when KIP-1279 fixes it.
 */
public final class RemoveTopicsFromMirrorResponseData extends TopicResultsResponseData<RemoveTopicsFromMirrorResponseData>
{
    public RemoveTopicsFromMirrorResponseData()
    {
        super(MirrorApiKeys.REMOVE_TOPICS_FROM_MIRROR);
    }

    @Override
    protected RemoveTopicsFromMirrorResponseData newInstance()
    {
        return new RemoveTopicsFromMirrorResponseData();
    }
}
