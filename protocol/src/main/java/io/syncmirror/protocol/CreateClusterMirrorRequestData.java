package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The CreateClusterMirror request (api key 102, version 0, flexible), which defines a mirror on the destination
 * cluster: its name, how to reach the source cluster, and which source topics it mirrors. Not thread-safe.
 *
 * <p>Neither mirroring text gives this RPC a schema; the schema here is designed for this project. The source
 * configs are Kafka client configs (security, timeouts) for the destination's connections to the source; a
 * null value is a config named without a value, for the handler to reject or default. Include and exclude
 * topics are Java regexes matched against whole source topic names: a topic is mirrored when it matches an
 * include pattern and no exclude pattern. The mirror configs (tagged field 0, absent when empty) are the mirror's
 * own settings, such as ACL sync ({@code acl.sync.enable}); a destination that does not know a name rejects it.
 */
public final class CreateClusterMirrorRequestData extends MirrorStruct implements ApiMessage
{
    /** The tag of MirrorConfigs. */
    public static final int MIRROR_CONFIGS_TAG = 0;

    private String mirrorName = "";
    private String sourceBootstrapServers = "";
    private List<SourceConfig> sourceConfigs = new ArrayList<>(0);
    private List<String> includeTopics = new ArrayList<>(0);
    private List<String> excludeTopics = new ArrayList<>(0);
    private List<SourceConfig> mirrorConfigs = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.CREATE_CLUSTER_MIRROR.id();
    }

    /** The name of the mirror to create. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public CreateClusterMirrorRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The source cluster's bootstrap servers, as a comma-separated host:port list. */
    public String sourceBootstrapServers()
    {
        return sourceBootstrapServers;
    }

    public CreateClusterMirrorRequestData setSourceBootstrapServers(final String value)
    {
        this.sourceBootstrapServers = value;
        return this;
    }

    /** The SourceConfigs array, each element: one client config for the connections to the source. */
    public List<SourceConfig> sourceConfigs()
    {
        return sourceConfigs;
    }

    public CreateClusterMirrorRequestData setSourceConfigs(final List<SourceConfig> value)
    {
        this.sourceConfigs = value;
        return this;
    }

    /** The regexes of source topic names to mirror. */
    public List<String> includeTopics()
    {
        return includeTopics;
    }

    public CreateClusterMirrorRequestData setIncludeTopics(final List<String> value)
    {
        this.includeTopics = value;
        return this;
    }

    /** The regexes of source topic names never to mirror, even when an include pattern matches. */
    public List<String> excludeTopics()
    {
        return excludeTopics;
    }

    public CreateClusterMirrorRequestData setExcludeTopics(final List<String> value)
    {
        this.excludeTopics = value;
        return this;
    }

    /** The MirrorConfigs array (tagged), each element one setting of the mirror itself, shaped as a source config. */
    public List<SourceConfig> mirrorConfigs()
    {
        return mirrorConfigs;
    }

    public CreateClusterMirrorRequestData setMirrorConfigs(final List<SourceConfig> value)
    {
        this.mirrorConfigs = value;
        return this;
    }

    @Override
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        if (tag != MIRROR_CONFIGS_TAG)
        {
            return false;
        }
        mirrorConfigs = readStructs(data, "CreateClusterMirrorRequest.MirrorConfigs", SourceConfig::new);
        return true;
    }

    @Override
    protected List<RawTaggedField> knownTaggedFields()
    {
        if (mirrorConfigs == null || mirrorConfigs.isEmpty())
        {
            return List.of();
        }
        return List.of(encodeStructsAsTaggedField(MIRROR_CONFIGS_TAG, mirrorConfigs,
            "CreateClusterMirrorRequest.MirrorConfigs"));
    }

    @Override
    protected void resetKnownTaggedFields()
    {
        mirrorConfigs = new ArrayList<>(0);
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "CreateClusterMirrorRequest.MirrorName");
        sourceBootstrapServers = WireCodec.readCompactString(readable,
            "CreateClusterMirrorRequest.SourceBootstrapServers");
        sourceConfigs = readStructs(readable, "CreateClusterMirrorRequest.SourceConfigs", SourceConfig::new);
        includeTopics = WireCodec.readCompactStringArray(readable, "CreateClusterMirrorRequest.IncludeTopics", false);
        excludeTopics = WireCodec.readCompactStringArray(readable, "CreateClusterMirrorRequest.ExcludeTopics", false);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "CreateClusterMirrorRequest.MirrorName");
        WireCodec.writeCompactString(writable, sourceBootstrapServers,
            "CreateClusterMirrorRequest.SourceBootstrapServers");
        writeStructs(writable, sourceConfigs, "CreateClusterMirrorRequest.SourceConfigs");
        WireCodec.writeCompactStringArray(writable, includeTopics, "CreateClusterMirrorRequest.IncludeTopics", false);
        WireCodec.writeCompactStringArray(writable, excludeTopics, "CreateClusterMirrorRequest.ExcludeTopics", false);
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + WireCodec.sizeOfCompactNullableString(sourceBootstrapServers)
            + sizeOfStructs(sourceConfigs)
            + WireCodec.sizeOfCompactStringArray(includeTopics)
            + WireCodec.sizeOfCompactStringArray(excludeTopics);
    }

    @Override
    protected CreateClusterMirrorRequestData newInstance()
    {
        return new CreateClusterMirrorRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        // Config values may be secrets (sasl.jaas.config, passwords), so SourceConfig prints names only.
        return "mirrorName=" + mirrorName + ", sourceBootstrapServers=" + sourceBootstrapServers
            + ", sourceConfigs=" + sourceConfigs + ", includeTopics=" + includeTopics + ", excludeTopics="
            + excludeTopics + ", mirrorConfigs=" + mirrorConfigs;
    }

    /** One client config for the destination's connections to the source cluster. */
    public static final class SourceConfig extends MirrorStruct
    {
        private String name = "";
        private String value = null;

        /** The config name, e.g. {@code security.protocol}. */
        public String name()
        {
            return name;
        }

        public SourceConfig setName(final String value)
        {
            this.name = value;
            return this;
        }

        /** The config value, or null. Nullable. */
        public String value()
        {
            return value;
        }

        public SourceConfig setValue(final String value)
        {
            this.value = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            name = WireCodec.readCompactString(readable, "CreateClusterMirrorRequest.SourceConfigs.Name");
            value = WireCodec.readCompactNullableString(readable, "CreateClusterMirrorRequest.SourceConfigs.Value");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, name, "CreateClusterMirrorRequest.SourceConfigs.Name");
            WireCodec.writeCompactNullableString(writable, value, "CreateClusterMirrorRequest.SourceConfigs.Value");
        }

        @Override
        protected int fieldsSize()
        {
            return WireCodec.sizeOfCompactNullableString(name)
                + WireCodec.sizeOfCompactNullableString(value);
        }

        @Override
        protected SourceConfig newInstance()
        {
            return new SourceConfig();
        }

        @Override
        protected String fieldsToString()
        {
            return "name=" + name + ", value=" + (value == null ? "null" : "(hidden)");
        }
    }
}
