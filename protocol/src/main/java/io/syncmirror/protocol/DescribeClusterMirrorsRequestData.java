package io.syncmirror.protocol;

import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The DescribeClusterMirrors request (version 0, flexible), which asks the destination cluster for the state of
 * its mirrors. Not thread-safe.
 *
 * <p>The KIP-1279 text names this RPC without giving its schema; the schema here is designed in the shape of the
 * mirror RPCs the sync text does give (per-topic results with error code and nullable message), and may change
 * when KIP-1279 fixes it.
 */
public final class DescribeClusterMirrorsRequestData extends MirrorStruct implements ApiMessage
{
    private List<String> mirrorNames = null;

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS.id();
    }

    /** The mirrors to describe, or null for all of them. Default null. Nullable. */
    public List<String> mirrorNames()
    {
        return mirrorNames;
    }

    public DescribeClusterMirrorsRequestData setMirrorNames(final List<String> value)
    {
        this.mirrorNames = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorNames = WireCodec.readCompactStringArray(readable, "DescribeClusterMirrorsRequest.MirrorNames", true);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactStringArray(writable, mirrorNames, "DescribeClusterMirrorsRequest.MirrorNames", true);
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactStringArray(mirrorNames);
    }

    @Override
    protected DescribeClusterMirrorsRequestData newInstance()
    {
        return new DescribeClusterMirrorsRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorNames=" + mirrorNames;
    }
}
