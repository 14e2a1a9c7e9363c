package io.syncmirror.protocol;

import java.util.function.Supplier;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The cluster mirroring RPCs that kafka-clients 4.4's {@code ApiKeys} does not know, each with its api key,
 * version range and the factories of its request and response data. Immutable.
 *
 * <p>AddTopicsToMirror keeps the key 95 both mirroring texts use. Every other RPC is marked {@code "apiKey": TBD}
 * in the sync text or given no schema at all in the KIP-1279 text, so its key is chosen here: the next free keys
 * after 95, the KIP-1279 RPCs first in the order that text introduces them, then the sync RPCs in the order the
 * sync text defines them. The RPCs neither text names (CreateClusterMirror, DeleteClusterMirror and the
 * broker-to-controller BumpLeaderEpochs, keys 102 to 104) are this project's own, keyed after all of those.
 * Kafka 4.4 uses keys 0 to 94; a test checks that no key here collides with one of
 * {@code ApiKeys}. The keys are assigned in this enum only, so following the KIPs when they fix their numbers
 * is a change of one constant each.
 *
 * <p>Every schema in both texts has {@code "validVersions": "0"} and {@code "flexibleVersions": "0+"}, so each
 * RPC has version 0 only, flexible, with request header version 2 and response header version 1. The sync
 * texts mark RegisterMirrorSyncTopic, UnregisterMirrorSyncTopic and AlterMirrorTopicType
 * {@code "latestVersionUnstable": true}; {@link #latestVersionUnstable()} carries that mark so an ApiVersions
 * handler can decide whether to advertise them.
 */
public enum MirrorApiKeys
{
    /** Key 95, as the specs give it. */
    ADD_TOPICS_TO_MIRROR(95, "AddTopicsToMirror", false,
        AddTopicsToMirrorRequestData::new, AddTopicsToMirrorResponseData::new),
    /** Key 96, chosen here; KIP-1279 names the RPC without a key. */
    REMOVE_TOPICS_FROM_MIRROR(96, "RemoveTopicsFromMirror", false,
        RemoveTopicsFromMirrorRequestData::new, RemoveTopicsFromMirrorResponseData::new),
    /** Key 97, chosen here; KIP-1279 names the RPC without a key. */
    DESCRIBE_CLUSTER_MIRRORS(97, "DescribeClusterMirrors", false,
        DescribeClusterMirrorsRequestData::new, DescribeClusterMirrorsResponseData::new),
    /** Key 98, chosen here; KIP-1279 names the RPC ("LastMirrorredOffsets") without a key. */
    LAST_MIRRORED_OFFSETS(98, "LastMirroredOffsets", false,
        LastMirroredOffsetsRequestData::new, LastMirroredOffsetsResponseData::new),
    /** Key 99, chosen here for the sync text's {@code "apiKey": TBD}. */
    REGISTER_MIRROR_SYNC_TOPIC(99, "RegisterMirrorSyncTopic", true,
        RegisterMirrorSyncTopicRequestData::new, RegisterMirrorSyncTopicResponseData::new),
    /** Key 100, chosen here for the sync text's {@code "apiKey": TBD}. */
    UNREGISTER_MIRROR_SYNC_TOPIC(100, "UnregisterMirrorSyncTopic", true,
        UnregisterMirrorSyncTopicRequestData::new, UnregisterMirrorSyncTopicResponseData::new),
    /** Key 101, chosen here for the sync text's {@code "apiKey": TBD}. */
    ALTER_MIRROR_TOPIC_TYPE(101, "AlterMirrorTopicType", true,
        AlterMirrorTopicTypeRequestData::new, AlterMirrorTopicTypeResponseData::new),
    /** Key 102, chosen here; this project's RPC that defines a mirror (name, source, topic filters). */
    CREATE_CLUSTER_MIRROR(102, "CreateClusterMirror", false,
        CreateClusterMirrorRequestData::new, CreateClusterMirrorResponseData::new),
    /** Key 103, chosen here; this project's RPC that deletes a mirror definition. */
    DELETE_CLUSTER_MIRROR(103, "DeleteClusterMirror", false,
        DeleteClusterMirrorRequestData::new, DeleteClusterMirrorResponseData::new),
    /** Key 104, chosen here; this project's broker-to-controller RPC that raises leader epochs at failover. */
    BUMP_LEADER_EPOCHS(104, "BumpLeaderEpochs", false,
        BumpLeaderEpochsRequestData::new, BumpLeaderEpochsResponseData::new);

    /** The lowest key of this enum; keys below it belong to Kafka. */
    public static final short MIN_ID = 95;
    /** The highest key of this enum. */
    public static final short MAX_ID = 104;

    private static final MirrorApiKeys[] BY_ID = new MirrorApiKeys[MAX_ID - MIN_ID + 1];

    static
    {
        for (final MirrorApiKeys key : values())
        {
            if (BY_ID[key.id - MIN_ID] != null)
            {
                throw new ExceptionInInitializerError("Duplicate mirror api key " + key.id);
            }
            BY_ID[key.id - MIN_ID] = key;
        }
    }

    private final short id;
    private final String apiName;
    private final boolean latestVersionUnstable;
    private final Supplier<ApiMessage> requestFactory;
    private final Supplier<ApiMessage> responseFactory;
    private final short oldestVersion;
    private final short latestVersion;

    MirrorApiKeys(final int id, final String apiName, final boolean latestVersionUnstable,
        final Supplier<ApiMessage> requestFactory, final Supplier<ApiMessage> responseFactory)
    {
        this.id = (short)id;
        this.apiName = apiName;
        this.latestVersionUnstable = latestVersionUnstable;
        this.requestFactory = requestFactory;
        this.responseFactory = responseFactory;
        // The versions the generated request class has, which its JSON schema's "validVersions" gives.
        final ApiMessage sample = requestFactory.get();
        this.oldestVersion = sample.lowestSupportedVersion();
        this.latestVersion = sample.highestSupportedVersion();
    }

    /** The mirror RPC with this key, or null if the key is not one of them. */
    public static MirrorApiKeys forId(final int id)
    {
        return id < MIN_ID || id > MAX_ID ? null : BY_ID[id - MIN_ID];
    }

    public short id()
    {
        return id;
    }

    /** The RPC's name as the specs write it, e.g. {@code AddTopicsToMirror}. */
    public String apiName()
    {
        return apiName;
    }

    public short oldestVersion()
    {
        return oldestVersion;
    }

    public short latestVersion()
    {
        return latestVersion;
    }

    public boolean isVersionSupported(final short version)
    {
        return version >= oldestVersion() && version <= latestVersion();
    }

    /** Whether this version uses compact encodings and tagged fields: every version ("0+"). */
    public boolean isFlexible(final short version)
    {
        return isVersionSupported(version);
    }

    /** The spec's {@code latestVersionUnstable} mark on the request schema. */
    public boolean latestVersionUnstable()
    {
        return latestVersionUnstable;
    }

    /** The request header version for a version of this RPC: 2, as every version is flexible. */
    public short requestHeaderVersion(final short version)
    {
        return MirrorRequestHeader.HEADER_VERSION;
    }

    /** The response header version for a version of this RPC: 1, as every version is flexible. */
    public short responseHeaderVersion(final short version)
    {
        return MirrorResponseHeader.HEADER_VERSION;
    }

    /** A new request data instance with every field at its default. */
    public ApiMessage newRequestData()
    {
        return requestFactory.get();
    }

    /** A new response data instance with every field at its default. */
    public ApiMessage newResponseData()
    {
        return responseFactory.get();
    }
}
