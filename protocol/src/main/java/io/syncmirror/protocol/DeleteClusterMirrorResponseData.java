package io.syncmirror.protocol;

/**
 * The DeleteClusterMirror response (api key 103, version 0, flexible): one error for the whole request. Not
 * thread-safe.
 *
 * <p>Neither mirroring text gives this RPC a schema; the schema here is designed for this project.
 */
public final class DeleteClusterMirrorResponseData extends ErrorOnlyResponseData<DeleteClusterMirrorResponseData>
{
    public DeleteClusterMirrorResponseData()
    {
        super(MirrorApiKeys.DELETE_CLUSTER_MIRROR);
    }

    @Override
    protected DeleteClusterMirrorResponseData newInstance()
    {
        return new DeleteClusterMirrorResponseData();
    }
}
