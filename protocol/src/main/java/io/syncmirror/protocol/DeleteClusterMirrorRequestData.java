package io.syncmirror.protocol;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The DeleteClusterMirror request (api key 103, version 0, flexible), which removes a mirror definition from the
 * destination cluster's metadata. Not thread-safe.
 *
 * <p>Neither mirroring text gives this RPC a schema; the schema here is designed for this project.
 */
public final class DeleteClusterMirrorRequestData extends MirrorStruct implements ApiMessage
{
    private String mirrorName = "";

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.DELETE_CLUSTER_MIRROR.id();
    }

    /** The name of the mirror to delete. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public DeleteClusterMirrorRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "DeleteClusterMirrorRequest.MirrorName");
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "DeleteClusterMirrorRequest.MirrorName");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName);
    }

    @Override
    protected DeleteClusterMirrorRequestData newInstance()
    {
        return new DeleteClusterMirrorRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName;
    }
}
