package io.syncmirror.broker.server;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.storage.internals.log.CleanerConfig;

import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.coordinator.CoordinatorConfig;
import io.syncmirror.broker.replica.ReplicaConfig;

/**
 * A broker's settings, read from a Kafka-style server.properties with Kafka's own keys and defaults where Kafka
 * has the setting, validated by Kafka's {@code ConfigDef} (a bad value names its key). Immutable.
 *
 * <p>The controller is replicated on Kafka's Raft: {@code controller.quorum.voters} names a static quorum
 * ({@code id@host:port,...}, Kafka's format, 1, 3 or 5 voters at their controller listeners); each node with
 * {@code process.roles} including {@code controller} is a voter, serves it on the first of
 * {@code controller.listener.names}, and the Raft leader is the active controller; every node reaches whichever
 * voter is active. A single controller is a quorum of one. Kafka's {@code controller.quorum.bootstrap.servers}
 * (a dynamic quorum, KIP-853) is refused: its voters would be found at run time, which this broker does not do.
 */
public final class BrokerConfig extends AbstractConfig
{
    public static final String NODE_ID_CONFIG = "node.id";
    public static final String PROCESS_ROLES_CONFIG = "process.roles";
    public static final String LISTENERS_CONFIG = "listeners";
    public static final String ADVERTISED_LISTENERS_CONFIG = "advertised.listeners";
    public static final String LISTENER_SECURITY_PROTOCOL_MAP_CONFIG = "listener.security.protocol.map";
    public static final String INTER_BROKER_LISTENER_NAME_CONFIG = "inter.broker.listener.name";
    /** Kafka's default map: each security protocol's name is a listener name of that protocol. */
    public static final String LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT =
        "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT";
    public static final String LOG_DIRS_CONFIG = "log.dirs";
    public static final String LOG_DIR_CONFIG = "log.dir";
    public static final String CONTROLLER_SERVERS_CONFIG = "controller.quorum.bootstrap.servers";
    public static final String CONTROLLER_VOTERS_CONFIG = "controller.quorum.voters";
    public static final String METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES_CONFIG =
        "metadata.log.max.record.bytes.between.snapshots";
    public static final String METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG = "metadata.log.max.snapshot.interval.ms";
    public static final String CONTROLLER_LISTENER_NAMES_CONFIG = "controller.listener.names";
    public static final String CLUSTER_ID_CONFIG = "cluster.id";
    public static final String NUM_PARTITIONS_CONFIG = "num.partitions";
    public static final String DEFAULT_REPLICATION_FACTOR_CONFIG = "default.replication.factor";
    public static final String MIN_INSYNC_REPLICAS_CONFIG = "min.insync.replicas";
    public static final String REPLICA_LAG_TIME_MAX_MS_CONFIG = "replica.lag.time.max.ms";
    public static final String UNCLEAN_LEADER_ELECTION_CONFIG = "unclean.leader.election.enable";
    public static final String AUTO_CREATE_TOPICS_CONFIG = "auto.create.topics.enable";
    public static final String BROKER_SESSION_TIMEOUT_MS_CONFIG = "broker.session.timeout.ms";
    public static final String BROKER_HEARTBEAT_INTERVAL_MS_CONFIG = "broker.heartbeat.interval.ms";
    public static final String SOCKET_REQUEST_MAX_BYTES_CONFIG = "socket.request.max.bytes";
    public static final String NUM_NETWORK_THREADS_CONFIG = "num.network.threads";
    public static final String REPLICA_FETCH_WAIT_MAX_MS_CONFIG = "replica.fetch.wait.max.ms";
    public static final String REPLICA_FETCH_MAX_BYTES_CONFIG = "replica.fetch.max.bytes";
    public static final String REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG = "replica.fetch.response.max.bytes";
    public static final String REPLICA_FETCH_BACKOFF_MS_CONFIG = "replica.fetch.backoff.ms";
    public static final String NUM_REPLICA_FETCHERS_CONFIG = "num.replica.fetchers";
    public static final String HW_CHECKPOINT_INTERVAL_MS_CONFIG = "replica.high.watermark.checkpoint.interval.ms";
    public static final String LOG_RETENTION_CHECK_INTERVAL_MS_CONFIG = "log.retention.check.interval.ms";
    public static final String OFFSETS_TOPIC_PARTITIONS_CONFIG = "offsets.topic.num.partitions";
    public static final String OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG = "offsets.topic.replication.factor";
    public static final String TXN_TOPIC_PARTITIONS_CONFIG = "transaction.state.log.num.partitions";
    public static final String TXN_TOPIC_REPLICATION_FACTOR_CONFIG = "transaction.state.log.replication.factor";
    public static final String TXN_TOPIC_MIN_ISR_CONFIG = "transaction.state.log.min.isr";
    public static final String TXN_MAX_TIMEOUT_MS_CONFIG = "transaction.max.timeout.ms";
    public static final String TXN_ABORT_CHECK_INTERVAL_MS_CONFIG =
        "transaction.abort.timed.out.transaction.cleanup.interval.ms";
    public static final String TXN_ID_EXPIRATION_MS_CONFIG = "transactional.id.expiration.ms";
    public static final String TXN_REMOVE_EXPIRED_INTERVAL_MS_CONFIG =
        "transaction.remove.expired.transaction.cleanup.interval.ms";
    public static final String OFFSET_METADATA_MAX_BYTES_CONFIG = "offset.metadata.max.bytes";
    public static final String MIRROR_METADATA_REFRESH_INTERVAL_MS_CONFIG = "mirror.metadata.refresh.interval.ms";
    public static final long MIRROR_METADATA_REFRESH_INTERVAL_MS_DEFAULT = 30_000L;
    public static final String MIRROR_COORDINATOR_TICK_MS_CONFIG = "mirror.coordinator.tick.ms";
    public static final long MIRROR_COORDINATOR_TICK_MS_DEFAULT = 500L;
    public static final String MIRROR_RETRY_BACKOFF_MS_CONFIG = "mirror.retry.backoff.ms";
    public static final long MIRROR_RETRY_BACKOFF_MS_DEFAULT = 1_000L;
    public static final String MIRROR_RETRY_BACKOFF_MAX_MS_CONFIG = "mirror.retry.backoff.max.ms";
    public static final long MIRROR_RETRY_BACKOFF_MAX_MS_DEFAULT = 30_000L;
    public static final String MIRROR_REQUEST_TIMEOUT_MS_CONFIG = "mirror.request.timeout.ms";
    public static final int MIRROR_REQUEST_TIMEOUT_MS_DEFAULT = 30_000;
    public static final String MIRROR_REPLICATION_THROTTLED_RATE_CONFIG = "mirror.replication.throttled.rate";
    public static final long MIRROR_REPLICATION_THROTTLED_RATE_DEFAULT = Long.MAX_VALUE;
    public static final String MIRROR_STATE_TOPIC_PARTITIONS_CONFIG = "mirror.state.topic.num.partitions";
    public static final int MIRROR_STATE_TOPIC_PARTITIONS_DEFAULT = 16;
    public static final String MIRROR_STATE_TOPIC_REPLICATION_FACTOR_CONFIG = "mirror.state.topic.replication.factor";
    public static final short MIRROR_STATE_TOPIC_REPLICATION_FACTOR_DEFAULT = 3;
    public static final String MIRROR_SYNC_VERSION_CONFIG = "mirror.sync.version";
    public static final short MIRROR_SYNC_VERSION_DEFAULT = 1;
    public static final String MIRROR_SYNC_TOPIC_DEMOTE_TIMEOUT_MS_CONFIG = "mirror.sync.topic.demote.timeout.ms";
    public static final long MIRROR_SYNC_TOPIC_DEMOTE_TIMEOUT_MS_DEFAULT = 30_000L;
    public static final String MIRROR_LINK_INJECTED_DELAY_MS_CONFIG = "mirror.link.injected.delay.ms";
    public static final String MESSAGE_MAX_BYTES_CONFIG = "message.max.bytes";
    /** Kafka's default: 1 MiB of record batch plus the batch overhead. */
    public static final int MESSAGE_MAX_BYTES_DEFAULT = 1024 * 1024 + 12;
    public static final String LOG_STORAGE_CONFIG = "syncmirror.log.storage";
    public static final String LOG_STORAGE_DURABLE = "durable";
    public static final String LOG_STORAGE_MEMORY = "memory";

    /** Broker-level log defaults handed to the log store, in topic-config key form. */
    private static final Map<String, String> LOG_DEFAULT_KEYS = Map.ofEntries(
        Map.entry("log.retention.ms", "retention.ms"),
        Map.entry("log.retention.bytes", "retention.bytes"),
        Map.entry("log.segment.bytes", "segment.bytes"),
        Map.entry("log.roll.ms", "segment.ms"),
        Map.entry("log.cleanup.policy", "cleanup.policy"),
        Map.entry("compression.type", "compression.type"),
        Map.entry("log.message.timestamp.type", "message.timestamp.type"),
        Map.entry(MESSAGE_MAX_BYTES_CONFIG, "max.message.bytes"),
        Map.entry(CleanerConfig.LOG_CLEANER_MIN_CLEAN_RATIO_PROP, "min.cleanable.dirty.ratio"),
        Map.entry(CleanerConfig.LOG_CLEANER_DELETE_RETENTION_MS_PROP, "delete.retention.ms"),
        Map.entry(CleanerConfig.LOG_CLEANER_MIN_COMPACTION_LAG_MS_PROP, "min.compaction.lag.ms"),
        Map.entry(CleanerConfig.LOG_CLEANER_MAX_COMPACTION_LAG_MS_PROP, "max.compaction.lag.ms"));

    public static final ConfigDef DEFINITION = new ConfigDef()
        .define(NODE_ID_CONFIG, Type.INT, ConfigDef.NO_DEFAULT_VALUE, Range.atLeast(0), Importance.HIGH,
            "This node's id, unique in the cluster.")
        .define(PROCESS_ROLES_CONFIG, Type.LIST, "broker", Importance.HIGH,
            "broker, or broker,controller on a node that runs the controller (a voter, or the single one); a "
                + "controller-only node is not supported.")
        .define(LISTENERS_CONFIG, Type.LIST, "PLAINTEXT://127.0.0.1:9092", Importance.HIGH,
            "Listeners as NAME://host:port; each name's security protocol (PLAINTEXT or SSL) comes from "
                + "listener.security.protocol.map.")
        .define(LISTENER_SECURITY_PROTOCOL_MAP_CONFIG, Type.LIST, LISTENER_SECURITY_PROTOCOL_MAP_DEFAULT,
            Importance.LOW, "Each listener name's security protocol, as NAME:PROTOCOL (Kafka's key and default; a "
                + "controller listener it does not name is PLAINTEXT while the key is not set). PLAINTEXT and SSL are "
                + "served; a SASL listener stops the broker at startup rather than be served without authentication.")
        .define(ADVERTISED_LISTENERS_CONFIG, Type.LIST, "", Importance.HIGH,
            "What clients are told to connect to; defaults to listeners. Each client is told the addresses of the "
                + "listener it connected to.")
        .define(INTER_BROKER_LISTENER_NAME_CONFIG, Type.STRING, null, Importance.MEDIUM,
            "The advertised listener other brokers (and this broker's own clients of its cluster) connect to, with "
                + "its security settings; by default the first advertised listener.")
        .define(LOG_DIRS_CONFIG, Type.LIST, "", Importance.HIGH, "Directories for the partitions' logs.")
        .define(LOG_DIR_CONFIG, Type.STRING, "/tmp/syncmirror-logs", Importance.HIGH,
            "The log directory when log.dirs is not set.")
        .define(CONTROLLER_SERVERS_CONFIG, Type.LIST, "", Importance.HIGH,
            "Kafka's bootstrap of a dynamic quorum (KIP-853); not supported: name the static quorum in "
                + "controller.quorum.voters.")
        .define(CONTROLLER_VOTERS_CONFIG, Type.LIST, "", Importance.HIGH,
            "The static metadata quorum, id@host:port per voter at its controller listener (1, 3 or 5 voters).")
        .define(METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES_CONFIG, Type.LONG, 20L * 1024 * 1024, Range.atLeast(1),
            Importance.HIGH, "Bytes of committed metadata records after the latest snapshot that make a voter "
            + "write the next one (Kafka's key and default).")
        .define(METADATA_SNAPSHOT_MAX_INTERVAL_MS_CONFIG, Type.LONG, 60L * 60 * 1000, Range.atLeast(0),
            Importance.HIGH, "Time after the latest snapshot, with new committed records, that makes a voter "
            + "write the next one; 0 disables it (Kafka's key and default).")
        .define(CONTROLLER_LISTENER_NAMES_CONFIG, Type.LIST, "", Importance.HIGH,
            "Listener names the controller serves; the first is where voters and brokers reach it.")
        .define(CLUSTER_ID_CONFIG, Type.STRING, "syncmirror-cluster", Importance.LOW,
            "The cluster id reported in Metadata responses.")
        .define(NUM_PARTITIONS_CONFIG, Type.INT, 1, Range.atLeast(1), Importance.MEDIUM,
            "Partitions of an auto-created topic or a CreateTopics without a count.")
        .define(DEFAULT_REPLICATION_FACTOR_CONFIG, Type.SHORT, (short)1, Range.atLeast(1), Importance.MEDIUM,
            "Replication factor of auto-created topics and CreateTopics without one.")
        .define(MIN_INSYNC_REPLICAS_CONFIG, Type.INT, 1, Range.atLeast(1), Importance.HIGH,
            "ISR size an acks=all produce needs, unless the topic overrides it.")
        .define(REPLICA_LAG_TIME_MAX_MS_CONFIG, Type.LONG, 30000L, Range.atLeast(1), Importance.HIGH,
            "A follower that has not caught up for this long leaves the ISR.")
        .define(UNCLEAN_LEADER_ELECTION_CONFIG, Type.BOOLEAN, false, Importance.HIGH,
            "Elect an out-of-sync replica when no ISR member is alive (may lose acknowledged records).")
        .define(AUTO_CREATE_TOPICS_CONFIG, Type.BOOLEAN, true, Importance.MEDIUM,
            "Create topics named in Metadata requests that allow it.")
        .define(BROKER_SESSION_TIMEOUT_MS_CONFIG, Type.INT, 9000, Range.atLeast(1), Importance.MEDIUM,
            "A broker without a heartbeat for this long is fenced and loses its leaderships.")
        .define(BROKER_HEARTBEAT_INTERVAL_MS_CONFIG, Type.INT, 2000, Range.atLeast(1), Importance.MEDIUM,
            "Heartbeat interval to the controller.")
        .define(SOCKET_REQUEST_MAX_BYTES_CONFIG, Type.INT, 100 * 1024 * 1024, Range.atLeast(1), Importance.LOW,
            "Largest request accepted; a larger frame closes the connection.")
        .define(NUM_NETWORK_THREADS_CONFIG, Type.INT, 2, Range.atLeast(1), Importance.LOW,
            "Event loops serving connections.")
        .define(REPLICA_FETCH_WAIT_MAX_MS_CONFIG, Type.INT, 500, Range.atLeast(0), Importance.LOW,
            "Longest time a follower's fetch waits for data.")
        .define(REPLICA_FETCH_MAX_BYTES_CONFIG, Type.INT, 1024 * 1024, Range.atLeast(1), Importance.LOW,
            "Bytes fetched per partition by followers.")
        .define(REPLICA_FETCH_RESPONSE_MAX_BYTES_CONFIG, Type.INT, 10 * 1024 * 1024, Range.atLeast(1),
            Importance.LOW, "Bytes per follower fetch response.")
        .define(REPLICA_FETCH_BACKOFF_MS_CONFIG, Type.INT, 1000, Range.atLeast(0), Importance.LOW,
            "Back-off after a failed follower fetch.")
        .define(NUM_REPLICA_FETCHERS_CONFIG, Type.INT, 1, Range.atLeast(1), Importance.LOW,
            "Fetcher threads per source broker.")
        .define(HW_CHECKPOINT_INTERVAL_MS_CONFIG, Type.LONG, 5000L, Range.atLeast(1), Importance.LOW,
            "How often the HW, log start offset and recovery point checkpoints are written.")
        .define(LOG_RETENTION_CHECK_INTERVAL_MS_CONFIG, Type.LONG, 300000L, Range.atLeast(1), Importance.LOW,
            "How often retention deletes old segments.")
        .define(OFFSETS_TOPIC_PARTITIONS_CONFIG, Type.INT, 50, Range.atLeast(1), Importance.LOW,
            "Partitions of __consumer_offsets.")
        .define(OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG, Type.SHORT, (short)3, Range.atLeast(1), Importance.LOW,
            "Replication factor of __consumer_offsets (capped by the brokers alive).")
        .define(TXN_TOPIC_PARTITIONS_CONFIG, Type.INT, 50, Range.atLeast(1), Importance.LOW,
            "Partitions of __transaction_state.")
        .define(TXN_TOPIC_REPLICATION_FACTOR_CONFIG, Type.SHORT, (short)3, Range.atLeast(1), Importance.LOW,
            "Replication factor of __transaction_state (capped by the brokers alive).")
        .define(TXN_TOPIC_MIN_ISR_CONFIG, Type.INT, 2, Range.atLeast(1), Importance.LOW,
            "min.insync.replicas of __transaction_state (capped by its replication factor).")
        .define(TXN_MAX_TIMEOUT_MS_CONFIG, Type.INT, 900000, Range.atLeast(1), Importance.LOW,
            "Largest transaction timeout a producer may ask for.")
        .define(TXN_ABORT_CHECK_INTERVAL_MS_CONFIG, Type.LONG, 10000L, Range.atLeast(1), Importance.LOW,
            "How often transactions past their timeout are looked for and aborted.")
        .define(TXN_ID_EXPIRATION_MS_CONFIG, Type.LONG, 604800000L, Range.atLeast(1), Importance.LOW,
            "A transactional id with no transaction open is forgotten after this long.")
        .define(TXN_REMOVE_EXPIRED_INTERVAL_MS_CONFIG, Type.LONG, 3600000L, Range.atLeast(1), Importance.LOW,
            "How often expired transactional ids are removed.")
        .define(OFFSET_METADATA_MAX_BYTES_CONFIG, Type.INT, 4096, Range.atLeast(0), Importance.LOW,
            "Largest metadata string a committed offset may carry.")
        .define(MIRROR_METADATA_REFRESH_INTERVAL_MS_CONFIG, Type.LONG, MIRROR_METADATA_REFRESH_INTERVAL_MS_DEFAULT,
            Range.atLeast(1), Importance.MEDIUM,
            "How often the controller node syncs each mirror's topics, configs, partitions and group offsets "
                + "from its source cluster.")
        .define(MIRROR_COORDINATOR_TICK_MS_CONFIG, Type.LONG, MIRROR_COORDINATOR_TICK_MS_DEFAULT, Range.atLeast(1),
            Importance.LOW, "How often the mirror coordinator looks at each mirror partition this broker leads.")
        .define(MIRROR_RETRY_BACKOFF_MS_CONFIG, Type.LONG, MIRROR_RETRY_BACKOFF_MS_DEFAULT, Range.atLeast(1),
            Importance.LOW, "First wait before a FAILED mirror partition is retried; doubles per attempt.")
        .define(MIRROR_RETRY_BACKOFF_MAX_MS_CONFIG, Type.LONG, MIRROR_RETRY_BACKOFF_MAX_MS_DEFAULT, Range.atLeast(1),
            Importance.LOW, "Longest wait before a FAILED mirror partition is retried.")
        .define(MIRROR_REQUEST_TIMEOUT_MS_CONFIG, Type.INT, MIRROR_REQUEST_TIMEOUT_MS_DEFAULT, Range.atLeast(1),
            Importance.LOW, "Bound of a mirror's calls to its source cluster, to the controller and to "
                + "__mirror_state.")
        .define(MIRROR_REPLICATION_THROTTLED_RATE_CONFIG, Type.LONG, MIRROR_REPLICATION_THROTTLED_RATE_DEFAULT,
            Range.atLeast(1), Importance.MEDIUM, "Bytes per second this broker's mirror fetchers may take from "
                + "source clusters, all mirrors together.")
        .define(MIRROR_STATE_TOPIC_PARTITIONS_CONFIG, Type.INT, MIRROR_STATE_TOPIC_PARTITIONS_DEFAULT,
            Range.atLeast(1), Importance.LOW, "Partitions of the __mirror_state topic when it is created.")
        .define(MIRROR_STATE_TOPIC_REPLICATION_FACTOR_CONFIG, Type.SHORT, MIRROR_STATE_TOPIC_REPLICATION_FACTOR_DEFAULT,
            Importance.LOW, "Replication factor of the __mirror_state topic (capped by the brokers alive when "
                + "it is created).")
        .define(MIRROR_SYNC_VERSION_CONFIG, Type.SHORT, MIRROR_SYNC_VERSION_DEFAULT, Range.between(0, 1),
            Importance.MEDIUM, "The finalized level of the mirror.sync.version feature this broker advertises and "
                + "serves: 1 gates produces on registered sync mirrors and serves Fetch v20 and Produce v14; 0 "
                + "disables synchronous mirroring (a destination's Register is answered MIRROR_SYNC_VERSION_MISMATCH).")
        .define(MIRROR_SYNC_TOPIC_DEMOTE_TIMEOUT_MS_CONFIG, Type.LONG, MIRROR_SYNC_TOPIC_DEMOTE_TIMEOUT_MS_DEFAULT,
            Range.atLeast(1), Importance.MEDIUM, "How long every partition of a sync-mirrored topic must keep "
                + "failing with INVALID_SYNC_REGISTRATION or MIRROR_REGISTRATION_PROPAGATING before the destination "
                + "demotes the topic to ASYNC.")
        .define(MIRROR_LINK_INJECTED_DELAY_MS_CONFIG, Type.DOUBLE, 0.0, Range.atLeast(0), Importance.LOW,
            "Emulated one-way delay, in milliseconds, added by this broker to each request it sends to a source "
                + "cluster's brokers for mirroring and to each response it receives from them (benchmarks and "
                + "tests of a distant source; 0 in production).")
        .define(LOG_STORAGE_CONFIG, Type.STRING, LOG_STORAGE_DURABLE,
            ConfigDef.ValidString.in(LOG_STORAGE_DURABLE, LOG_STORAGE_MEMORY), Importance.MEDIUM,
            "durable: Kafka's log engine under log.dirs; memory: heap logs, lost on stop (benchmarks).")
        .define(ReplicaConfig.PARTITION_SLOTS_CONFIG, Type.INT, ReplicaConfig.PARTITION_SLOTS_DEFAULT,
            Range.atLeast(1), Importance.LOW, "Partitions this broker may lead at once (off-heap rows).")
        .define(ReplicaConfig.WAITERS_PER_PARTITION_CONFIG, Type.INT, ReplicaConfig.WAITERS_PER_PARTITION_DEFAULT,
            Range.atLeast(1), Importance.LOW,
            "acks=all produces waiting on one partition at once, a power of two; more get a retriable error.")
        .define(MirrorLinks.LINKS_CONFIG, Type.INT, MirrorLinks.LINKS_DEFAULT,
            Range.between(1, MirrorLinks.LINKS_MAX), Importance.LOW,
            "Sync mirrors a source cluster may register at once (the controller refuses one more); each is a block "
            + "of every partition slot's row, 16 bytes plus 8 per replica (80 bytes at 8 replicas, so 1.3 MB at "
            + "16,384 slots). Set it alike on every node of the cluster.")
        .define(MESSAGE_MAX_BYTES_CONFIG, Type.INT, MESSAGE_MAX_BYTES_DEFAULT, Range.atLeast(0), Importance.HIGH,
            "Largest record batch a topic accepts unless its max.message.bytes says otherwise; also the largest "
                + "batch the log cleaner expects to read.");

    static
    {
        // Kafka's own log.cleaner.* keys (CleanerConfig's definitions, defaults and validators), so a Kafka
        // server.properties means the same here.
        for (final ConfigDef.ConfigKey key : CleanerConfig.CONFIG_DEF.configKeys().values())
        {
            if (!DEFINITION.configKeys().containsKey(key.name))
            {
                DEFINITION.define(key);
            }
        }
        SecurityConfig.define(DEFINITION);
    }

    /** A listener as configured: its name and address. */
    public record Listener(String name, String host, int port)
    {
    }

    private final SecurityConfig security;

    public BrokerConfig(final Map<?, ?> props)
    {
        super(DEFINITION, props, false);
        checkRoles(getList(PROCESS_ROLES_CONFIG));
        final int waiters = getInt(ReplicaConfig.WAITERS_PER_PARTITION_CONFIG);
        if (Integer.bitCount(waiters) != 1)
        {
            throw new ConfigException(ReplicaConfig.WAITERS_PER_PARTITION_CONFIG, waiters, "must be a power of two");
        }
        listeners();
        checkQuorum();
        interBrokerListener();
        final List<Listener> all = new ArrayList<>(listeners());
        all.addAll(advertisedListeners());
        this.security = new SecurityConfig(this, all, getList(CONTROLLER_LISTENER_NAMES_CONFIG));
        security.checkSasl(interBrokerListener().name(), listeners().stream().map(Listener::name).toList());
    }

    /** Each listener's security protocol and TLS settings. */
    public SecurityConfig security()
    {
        return security;
    }

    /**
     * Kafka's rules for {@code process.roles} (known roles, none twice), and one of ours: every node runs the
     * broker role. A controller-only node, which Kafka allows, is refused rather than run as a broker: the mirror
     * operations a voter's controller serves (the mirror metadata manager's source syncs, the calls to the mirror
     * topics' leaders) need this node's broker parts.
     */
    private static void checkRoles(final List<String> roles)
    {
        for (final String role : roles)
        {
            if (!role.equals("broker") && !role.equals("controller"))
            {
                throw new ConfigException(PROCESS_ROLES_CONFIG, roles, "unknown process role '" + role
                    + "' (the roles are broker and controller)");
            }
        }
        if (new java.util.HashSet<>(roles).size() != roles.size())
        {
            throw new ConfigException(PROCESS_ROLES_CONFIG, roles, "duplicate role names");
        }
        if (!roles.contains("broker"))
        {
            throw new ConfigException(PROCESS_ROLES_CONFIG, roles, "a node without the broker role (a "
                + "controller-only node) is not supported: use broker,controller for a voter, broker for the rest");
        }
    }

    public static BrokerConfig fromProperties(final Properties properties)
    {
        return new BrokerConfig(properties);
    }

    public int nodeId()
    {
        return getInt(NODE_ID_CONFIG);
    }

    public boolean runsController()
    {
        return getList(PROCESS_ROLES_CONFIG).contains("controller");
    }

    public List<Listener> listeners()
    {
        return parseListeners(LISTENERS_CONFIG, getList(LISTENERS_CONFIG));
    }

    /** What clients are told; the controller's listeners are never among them (as in Kafka). */
    public List<Listener> advertisedListeners()
    {
        final List<String> advertised = getList(ADVERTISED_LISTENERS_CONFIG);
        final List<String> controllerNames = getList(CONTROLLER_LISTENER_NAMES_CONFIG);
        final List<Listener> named = advertised.isEmpty() ? listeners() :
            parseListeners(ADVERTISED_LISTENERS_CONFIG, advertised);
        final List<Listener> served = named.stream().filter(l -> !controllerNames.contains(l.name())).toList();
        if (served.isEmpty())
        {
            throw new ConfigException(advertised.isEmpty() ? LISTENERS_CONFIG : ADVERTISED_LISTENERS_CONFIG, named,
                "no listener left to advertise besides the controller's " + controllerNames);
        }
        return served;
    }

    /** The advertised listener other brokers reach this one on: {@code inter.broker.listener.name}, or the first. */
    public Listener interBrokerListener()
    {
        final String name = getString(INTER_BROKER_LISTENER_NAME_CONFIG);
        final List<Listener> advertised = advertisedListeners();
        if (name == null)
        {
            return advertised.get(0);
        }
        return advertised.stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow(() ->
            new ConfigException(INTER_BROKER_LISTENER_NAME_CONFIG, name, "not an advertised listener (the "
                + "controllers' listener is never one)"));
    }

    /** The metadata quorum's voters, node id to controller listener address, in id order. */
    public Map<Integer, java.net.InetSocketAddress> controllerVoters()
    {
        final Map<Integer, java.net.InetSocketAddress> voters = new java.util.TreeMap<>();
        for (final String voter : getList(CONTROLLER_VOTERS_CONFIG))
        {
            final int at = voter.indexOf('@');
            final int colon = voter.lastIndexOf(':');
            if (at <= 0 || colon <= at + 1)
            {
                throw new ConfigException(CONTROLLER_VOTERS_CONFIG, voter, "expected id@host:port");
            }
            final int id;
            try
            {
                id = Integer.parseInt(voter.substring(0, at).trim());
            }
            catch (final NumberFormatException e)
            {
                throw new ConfigException(CONTROLLER_VOTERS_CONFIG, voter, "the voter id is not a number");
            }
            final java.net.InetSocketAddress address = java.net.InetSocketAddress.createUnresolved(
                voter.substring(at + 1, colon), parsePort(CONTROLLER_VOTERS_CONFIG, voter.substring(colon + 1)));
            if (voters.put(id, address) != null)
            {
                throw new ConfigException(CONTROLLER_VOTERS_CONFIG, voter, "voter " + id + " is named twice");
            }
        }
        return voters;
    }

    /** The listener the controller serves (the first of controller.listener.names); voters only. */
    public Listener controllerListener()
    {
        final String name = getList(CONTROLLER_LISTENER_NAMES_CONFIG).get(0);
        return listeners().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow();
    }

    private void checkQuorum()
    {
        if (!getList(CONTROLLER_SERVERS_CONFIG).isEmpty())
        {
            throw new ConfigException(CONTROLLER_SERVERS_CONFIG, getList(CONTROLLER_SERVERS_CONFIG),
                "dynamic metadata quorums (KIP-853) are not supported; name the static quorum in "
                + CONTROLLER_VOTERS_CONFIG + " (id@host:port of each voter's controller listener; one voter for a "
                + "single controller)");
        }
        if (getList(CONTROLLER_VOTERS_CONFIG).isEmpty())
        {
            throw new ConfigException(CONTROLLER_VOTERS_CONFIG, "", "required: the static metadata quorum, "
                + "id@host:port of each voter's controller listener (1, 3 or 5 voters)");
        }
        final Map<Integer, java.net.InetSocketAddress> voters = controllerVoters();
        if (voters.size() % 2 == 0 || voters.size() > 5)
        {
            throw new ConfigException(CONTROLLER_VOTERS_CONFIG, getList(CONTROLLER_VOTERS_CONFIG),
                "a static quorum has 1, 3 or 5 voters (an even count tolerates no more failures than one fewer)");
        }
        if (!runsController())
        {
            if (voters.containsKey(nodeId()))
            {
                throw new ConfigException(PROCESS_ROLES_CONFIG, getList(PROCESS_ROLES_CONFIG), "node " + nodeId()
                    + " is a voter in " + CONTROLLER_VOTERS_CONFIG + " and must include the controller role");
            }
            return;
        }
        if (!voters.containsKey(nodeId()))
        {
            throw new ConfigException(CONTROLLER_VOTERS_CONFIG, getList(CONTROLLER_VOTERS_CONFIG), "node " + nodeId()
                + " runs the controller but is not among the voters");
        }
        final List<String> names = getList(CONTROLLER_LISTENER_NAMES_CONFIG);
        if (names.isEmpty())
        {
            throw new ConfigException(CONTROLLER_LISTENER_NAMES_CONFIG, names,
                "a controller needs its own listener, named here and in " + LISTENERS_CONFIG);
        }
        final Listener listener = listeners().stream().filter(l -> l.name().equals(names.get(0))).findFirst()
            .orElseThrow(() -> new ConfigException(CONTROLLER_LISTENER_NAMES_CONFIG, names,
                "listener " + names.get(0) + " is not in " + LISTENERS_CONFIG));
        final int votersPort = voters.get(nodeId()).getPort();
        if (listener.port() != votersPort)
        {
            throw new ConfigException(CONTROLLER_VOTERS_CONFIG, getList(CONTROLLER_VOTERS_CONFIG), "voter "
                + nodeId() + " is at port " + votersPort + " but its listener " + listener.name() + " binds "
                + listener.port());
        }
        if (listeners().stream().allMatch(l -> names.contains(l.name())))
        {
            throw new ConfigException(LISTENERS_CONFIG, getList(LISTENERS_CONFIG),
                "a broker needs a listener besides the controller's");
        }
    }

    public List<Path> logDirs()
    {
        final List<String> dirs = getList(LOG_DIRS_CONFIG);
        final List<Path> paths = new ArrayList<>();
        for (final String dir : dirs.isEmpty() ? List.of(getString(LOG_DIR_CONFIG)) : dirs)
        {
            paths.add(Path.of(dir));
        }
        return paths;
    }

    public boolean durableStorage()
    {
        return LOG_STORAGE_DURABLE.equals(getString(LOG_STORAGE_CONFIG));
    }

    /** Broker-level log defaults in topic-config key form, for the log store. */
    public Map<String, String> logDefaults()
    {
        final Map<String, String> defaults = new HashMap<>();
        for (final Map.Entry<String, String> key : LOG_DEFAULT_KEYS.entrySet())
        {
            final Object value = originals().get(key.getKey());
            if (value != null)
            {
                defaults.put(key.getValue(), value.toString());
            }
        }
        final Object hours = originals().get("log.retention.hours");
        if (hours != null && !defaults.containsKey("retention.ms"))
        {
            defaults.put("retention.ms", Long.toString(Long.parseLong(hours.toString().trim()) * 3_600_000L));
        }
        defaults.put("min.insync.replicas", Integer.toString(getInt(MIN_INSYNC_REPLICAS_CONFIG)));
        defaults.put("unclean.leader.election.enable", Boolean.toString(getBoolean(UNCLEAN_LEADER_ELECTION_CONFIG)));
        return defaults;
    }

    /** Kafka's log cleaner settings ({@code log.cleaner.*}, {@code message.max.bytes}). */
    public CleanerConfig cleanerConfig()
    {
        return new CleanerConfig(this);
    }

    public ReplicaConfig replicaConfig()
    {
        return new ReplicaConfig(nodeId(), getInt(MIN_INSYNC_REPLICAS_CONFIG), getLong(REPLICA_LAG_TIME_MAX_MS_CONFIG),
            ReplicaConfig.MAX_REPLICAS, getInt(ReplicaConfig.PARTITION_SLOTS_CONFIG),
            getInt(ReplicaConfig.WAITERS_PER_PARTITION_CONFIG), ReplicaConfig.MAX_REQUESTS_PER_OWNER,
            getInt(MirrorLinks.LINKS_CONFIG));
    }

    /** The coordinators' settings, from the validated keys above. */
    public CoordinatorConfig coordinatorConfig()
    {
        return new CoordinatorConfig(nodeId(), getInt(TXN_TOPIC_PARTITIONS_CONFIG),
            getShort(TXN_TOPIC_REPLICATION_FACTOR_CONFIG), getInt(TXN_TOPIC_MIN_ISR_CONFIG),
            getInt(TXN_MAX_TIMEOUT_MS_CONFIG), getLong(TXN_ABORT_CHECK_INTERVAL_MS_CONFIG),
            getLong(TXN_ID_EXPIRATION_MS_CONFIG), getLong(TXN_REMOVE_EXPIRED_INTERVAL_MS_CONFIG),
            getInt(OFFSETS_TOPIC_PARTITIONS_CONFIG), getShort(OFFSETS_TOPIC_REPLICATION_FACTOR_CONFIG),
            getInt(OFFSET_METADATA_MAX_BYTES_CONFIG), CoordinatorConfig.APPEND_TIMEOUT_MS_DEFAULT,
            CoordinatorConfig.MARKER_RETRY_BACKOFF_MS_DEFAULT);
    }

    public long mirrorMetadataRefreshIntervalMs()
    {
        return getLong(MIRROR_METADATA_REFRESH_INTERVAL_MS_CONFIG);
    }

    private static List<Listener> parseListeners(final String key, final List<String> values)
    {
        final List<Listener> listeners = new ArrayList<>();
        for (final String value : values)
        {
            final int scheme = value.indexOf("://");
            final int colon = value.lastIndexOf(':');
            if (scheme <= 0 || colon <= scheme + 2)
            {
                throw new ConfigException(key, value, "expected NAME://host:port");
            }
            final String host = value.substring(scheme + 3, colon);
            listeners.add(new Listener(value.substring(0, scheme), host.isEmpty() ? "0.0.0.0" : host,
                parsePort(key, value.substring(colon + 1))));
        }
        if (listeners.isEmpty())
        {
            throw new ConfigException(key, values, "at least one listener is needed");
        }
        return listeners;
    }

    private static int parsePort(final String key, final String port)
    {
        try
        {
            final int value = Integer.parseInt(port.trim());
            if (value < 0 || value > 65535)
            {
                throw new ConfigException(key, port, "port out of range");
            }
            return value;
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(key, port, "port is not a number");
        }
    }
}
