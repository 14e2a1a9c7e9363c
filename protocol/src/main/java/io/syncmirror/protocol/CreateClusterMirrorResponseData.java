package io.syncmirror.protocol;

/**
 * The CreateClusterMirror response (api key 102, version 0, flexible): one error for the whole request. Not
 * thread-safe.
 *
 * <p>Neither mirroring text gives this RPC a schema; the schema here is designed for this project.
 */
public final class CreateClusterMirrorResponseData extends ErrorOnlyResponseData<CreateClusterMirrorResponseData>
{
    public CreateClusterMirrorResponseData()
    {
        super(MirrorApiKeys.CREATE_CLUSTER_MIRROR);
    }

    @Override
    protected CreateClusterMirrorResponseData newInstance()
    {
        return new CreateClusterMirrorResponseData();
    }
}
