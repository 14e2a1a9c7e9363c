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
    private boolean localPartitionsOnly = false;

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

    /**
     * True to answer only for the partitions the receiving broker leads, as a broker sets when it fans a describe
     * out to the other brokers and merges their answers; false for the whole cluster's view. Default false.
     */
    public boolean localPartitionsOnly()
    {
        return localPartitionsOnly;
    }

    public DescribeClusterMirrorsRequestData setLocalPartitionsOnly(final boolean value)
    {
        this.localPartitionsOnly = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorNames = WireCodec.readCompactStringArray(readable, "DescribeClusterMirrorsRequest.MirrorNames", true);
        localPartitionsOnly = WireCodec.readBool(readable, "DescribeClusterMirrorsRequest.LocalPartitionsOnly");
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactStringArray(writable, mirrorNames, "DescribeClusterMirrorsRequest.MirrorNames", true);
        WireCodec.writeBool(writable, localPartitionsOnly);
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactStringArray(mirrorNames)
            + 1;
    }

    @Override
    protected DescribeClusterMirrorsRequestData newInstance()
    {
        return new DescribeClusterMirrorsRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorNames=" + mirrorNames + ", localPartitionsOnly=" + localPartitionsOnly;
    }
}
