package io.syncmirror.broker.controller;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.MirrorTopicConfig;

/**
 * Keeps each mirror's topics on this (destination) cluster in step with its source cluster; runs on the controller
 * node only. Thread-safe: all work runs on one daemon thread ({@code mirror-metadata-manager}); public methods
 * only enqueue and return futures; {@link #close} stops the thread and closes every client.
 *
 * <p>Every {@code mirror.metadata.refresh.interval.ms}, for each mirror defined in the metadata log, it lists the
 * source's non-internal topics, keeps those matching an include regex and no exclude regex (exclude wins;
 * regexes match whole names), and:
 * <ul>
 * <li>creates each matching topic missing here as a mirror topic with the source's id, partition count and
 * configs (a topic here under that name that is not in the mirror is left alone: it may have been failed over
 * and only an explicit add brings it back);</li>
 * <li>for every topic whose {@code mirror.name} is the mirror: copies the source's topic configs (user changes
 * here are overridden at each cycle), grows the partition count to the source's, and logs a WARN when the source
 * topic has {@code unclean.leader.election.enable=true} (mirroring cannot reconcile an unclean election);</li>
 * <li>copies the committed offsets of the source's consumer groups on those topics to this cluster (through an
 * Admin on this cluster's own listener), also offsets above the mirrored log end: the mirror catches up to
 * them;</li>
 * <li>when the mirror's ACL sync is enabled, copies the source's ACLs of those topics and of the selected groups
 * ({@link MirrorAclSync}).</li>
 * </ul>
 * Errors are logged and kept as the mirror's {@link #lastError}; they never stop the thread, and an unreachable
 * source is simply retried at the next cycle.
 */
public final class MirrorMetadataManager implements AutoCloseable
{
    /** Partitions of new mirror topics per metadata commit: Kafka's controller's bound on one operation's records. */
    static final int MAX_PARTITIONS_PER_COMMIT = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(MirrorMetadataManager.class);
    private static final long CONTROLLER_WAIT_MS = 30_000;

    /** Writes committed offsets on the destination cluster. Called from the manager's thread only. */
    public interface GroupOffsetWriter extends AutoCloseable
    {
        void commit(String groupId, Map<TopicPartition, OffsetAndMetadata> offsets) throws Exception;

        @Override
        void close();
    }

    private final MirrorController controller;
    private final Function<MirrorDefinition, SourceClusterClient> clientFactory;
    private final GroupOffsetWriter offsetWriter;
    private final MirrorAclSync aclSync;
    private final long refreshIntervalMs;
    private final LongSupplier nowMs;
    private final ScheduledExecutorService thread;

    // Owned by the manager's thread.
    private final Map<String, ClientEntry> clients = new HashMap<>();
    private final Map<String, Map<String, Map<TopicPartition, Long>>> copiedOffsets = new HashMap<>();

    // Read from any thread.
    private final Map<String, String> lastErrors = new ConcurrentHashMap<>();
    private final Map<String, Long> lastSyncMs = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> uncleanWarnings = new ConcurrentHashMap<>();
    /** Per mirror, how often an offset sync skipped a group that has members on this cluster. */
    private final Map<String, AtomicLong> activeGroupsSkipped = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param controller           the controller's mirror operations
     * @param clientFactory        opens a client to a mirror's source cluster (e.g. {@link AdminSourceClusterClient})
     * @param destinationClientConfigs Kafka client settings for this cluster ({@code bootstrap.servers} and its
     *                                 listener's security), for copying consumer group offsets
     * @param refreshIntervalMs    {@code mirror.metadata.refresh.interval.ms}
     * @param nowMs                the clock, for {@link #lastSyncMs}
     */
    public MirrorMetadataManager(final MirrorController controller,
        final Function<MirrorDefinition, SourceClusterClient> clientFactory,
        final Supplier<Map<String, Object>> destinationClientConfigs, final long refreshIntervalMs,
        final LongSupplier nowMs)
    {
        this(controller, clientFactory, new AdminGroupOffsetWriter(destinationClientConfigs), refreshIntervalMs, nowMs);
    }

    /** As above, with the writer of destination offsets given (tests). */
    public MirrorMetadataManager(final MirrorController controller,
        final Function<MirrorDefinition, SourceClusterClient> clientFactory, final GroupOffsetWriter offsetWriter,
        final long refreshIntervalMs, final LongSupplier nowMs)
    {
        if (refreshIntervalMs <= 0)
        {
            throw new IllegalArgumentException("refresh interval must be positive: " + refreshIntervalMs);
        }
        this.controller = controller;
        this.clientFactory = clientFactory;
        this.offsetWriter = offsetWriter;
        this.aclSync = new MirrorAclSync(controller);
        this.refreshIntervalMs = refreshIntervalMs;
        this.nowMs = nowMs;
        this.thread = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "mirror-metadata-manager");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the periodic sync: the first cycle at once, then every refresh interval after the previous ends. */
    public void start()
    {
        thread.scheduleWithFixedDelay(this::syncAllSafely, 0, refreshIntervalMs, TimeUnit.MILLISECONDS);
    }

    /** Runs one sync cycle of every mirror now (after any work queued before it). */
    public CompletableFuture<Void> syncNow()
    {
        return submit(() ->
        {
            syncAllSafely();
            return null;
        });
    }

    /**
     * Adds topics to mirror {@code mirrorName}: each named topic is looked up at the source now and created here
     * as a mirror topic (or, when it exists here with the source's id, attached again: failback); each pattern
     * is appended to the mirror's include list and applied at once. The result has one entry per topic name and
     * per pattern: UNKNOWN_TOPIC_OR_PARTITION when the source has no such topic, RESOURCE_NOT_FOUND for an
     * unknown mirror, NETWORK_EXCEPTION naming the source when it cannot be reached, else the controller's answer.
     */
    public CompletableFuture<Map<String, MirrorOpResult>> addTopicsToMirror(final String mirrorName,
        final List<String> topicNames, final List<String> patterns)
    {
        final List<String> names = List.copyOf(topicNames);
        final List<String> regexes = List.copyOf(patterns);
        return submit(() -> doAddTopics(mirrorName, names, regexes));
    }

    /** The last error of the mirror's sync (cleared by a cycle without error); empty when none. */
    public Optional<String> lastError(final String mirrorName)
    {
        return Optional.ofNullable(lastErrors.get(mirrorName));
    }

    /** When the mirror's last complete sync cycle ended (the clock's ms), or -1. */
    public long lastSyncMs(final String mirrorName)
    {
        return lastSyncMs.getOrDefault(mirrorName, -1L);
    }

    /**
     * How many times the mirror's offset sync skipped a consumer group because it has members on this cluster
     * (a group active here keeps its own offsets).
     */
    public long activeGroupOffsetSyncsSkipped(final String mirrorName)
    {
        final AtomicLong count = activeGroupsSkipped.get(mirrorName);
        return count == null ? 0 : count.get();
    }

    /** How many unclean-leader-election warnings the mirror's syncs have logged. */
    public long uncleanLeaderElectionWarnings(final String mirrorName)
    {
        final AtomicLong count = uncleanWarnings.get(mirrorName);
        return count == null ? 0 : count.get();
    }

    @Override
    public void close()
    {
        closed = true;
        thread.shutdownNow();
        try
        {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        // The thread is stopped (or stuck in a bounded client call, which closing its client ends).
        for (final ClientEntry entry : new ArrayList<>(clients.values()))
        {
            closeQuietly(entry.client);
        }
        clients.clear();
        closeQuietly(offsetWriter);
    }

    private <T> CompletableFuture<T> submit(final Supplier<T> work)
    {
        final CompletableFuture<T> future = new CompletableFuture<>();
        if (closed)
        {
            future.completeExceptionally(new IllegalStateException("the mirror metadata manager is closed"));
            return future;
        }
        try
        {
            thread.execute(() ->
            {
                try
                {
                    future.complete(work.get());
                }
                catch (final RuntimeException e)
                {
                    future.completeExceptionally(e);
                }
            });
        }
        catch (final RejectedExecutionException e)
        {
            future.completeExceptionally(new IllegalStateException("the mirror metadata manager is closed"));
        }
        return future;
    }

    // ---------------------------------------------------------------------------------------------- sync cycle

    private void syncAllSafely()
    {
        if (!controller.isActive())
        {
            // A standby of the metadata quorum: the active controller's node syncs the mirrors.
            return;
        }
        try
        {
            final MirrorController.TopicsSnapshot snapshot = await(controller.topics());
            closeClientsOfRemovedMirrors(snapshot.mirrors().keySet());
            for (final MirrorDefinition mirror : snapshot.mirrors().values())
            {
                if (closed)
                {
                    return;
                }
                syncMirrorSafely(mirror);
            }
        }
        catch (final RuntimeException e)
        {
            LOG.warn("Mirror metadata sync could not read the controller's state: {}", e.toString());
        }
    }

    private void syncMirrorSafely(final MirrorDefinition mirror)
    {
        final List<String> errors = new ArrayList<>();
        try
        {
            syncMirror(mirror, errors);
        }
        catch (final SourceClusterClient.SourceUnavailableException e)
        {
            errors.add(e.getMessage());
            dropClient(mirror.name());
        }
        catch (final RuntimeException e)
        {
            errors.add("sync of mirror '" + mirror.name() + "' failed: " + e);
        }
        if (errors.isEmpty())
        {
            lastErrors.remove(mirror.name());
            lastSyncMs.put(mirror.name(), nowMs.getAsLong());
        }
        else
        {
            final String error = String.join("; ", errors);
            lastErrors.put(mirror.name(), error);
            LOG.warn("Mirror '{}': {} (retried at the next cycle)", mirror.name(), error);
        }
    }

    private void syncMirror(final MirrorDefinition mirror, final List<String> errors)
    {
        final SourceClusterClient source = clientFor(mirror);
        final Set<String> sourceTopics = source.listTopics();
        final List<String> matched = matching(mirror, sourceTopics);
        MirrorController.TopicsSnapshot snapshot = await(controller.topics());

        final Set<String> toDescribe = new LinkedHashSet<>();
        for (final String name : matched)
        {
            final Optional<MirrorController.TopicView> here = snapshot.topic(name);
            if (here.isEmpty() || here.get().mirrorName().filter(mirror.name()::equals).isPresent())
            {
                toDescribe.add(name);
            }
        }
        for (final MirrorController.TopicView t : snapshot.topics())
        {
            if (t.mirrorName().filter(mirror.name()::equals).isPresent())
            {
                toDescribe.add(t.name());
            }
        }
        final Map<String, SourceClusterClient.SourceTopic> described = source.describeTopics(toDescribe);

        final List<SourceClusterClient.SourceTopic> toCreate = new ArrayList<>();
        for (final String name : matched)
        {
            final SourceClusterClient.SourceTopic src = described.get(name);
            if (src != null && snapshot.topic(name).isEmpty())
            {
                toCreate.add(src);
            }
        }
        boolean created = false;
        if (!toCreate.isEmpty())
        {
            final Map<String, MirrorOpResult> results = createInCommits(mirror.name(), toCreate);
            for (final SourceClusterClient.SourceTopic src : toCreate)
            {
                final MirrorOpResult result = results.get(src.name());
                if (result.isOk())
                {
                    LOG.info("Mirror '{}': created topic {} ({} partitions, id {})", mirror.name(), src.name(),
                        src.partitions(), src.topicId());
                    created = true;
                }
                else
                {
                    errors.add("topic " + src.name() + ": " + result.error() + " " + result.messageOrDefault());
                }
            }
        }
        if (created)
        {
            snapshot = await(controller.topics());
        }

        final Map<String, MirrorController.TopicView> attached = new TreeMap<>();
        for (final MirrorController.TopicView t : snapshot.topics())
        {
            if (t.mirrorName().filter(mirror.name()::equals).isPresent())
            {
                attached.put(t.name(), t);
            }
        }
        for (final MirrorController.TopicView t : attached.values())
        {
            syncTopic(mirror, t, described.get(t.name()), errors);
        }
        syncGroupOffsets(mirror, source, attached, errors);
        aclSync.sync(mirror, source, attached.keySet(), errors);
    }

    private void syncTopic(final MirrorDefinition mirror, final MirrorController.TopicView here,
        final SourceClusterClient.SourceTopic src, final List<String> errors)
    {
        if (src == null)
        {
            errors.add("topic " + here.name() + " is in the mirror but no longer exists at the source");
            return;
        }
        if (!src.topicId().equals(here.id()))
        {
            errors.add("topic " + here.name() + " has id " + here.id() + " here but " + src.topicId()
                + " at the source (recreated there?); not synced");
            return;
        }
        if (src.uncleanLeaderElectionEnable())
        {
            uncleanWarnings.computeIfAbsent(mirror.name(), k -> new AtomicLong()).incrementAndGet();
            LOG.warn("Mirror '{}': source topic {} has unclean.leader.election.enable=true; cluster mirroring cannot "
                + "reconcile the log divergence an unclean election causes, so mirrored data may differ from the "
                + "source after one", mirror.name(), here.name());
        }
        if (src.partitions() > here.partitions())
        {
            final MirrorOpResult result = await(controller.addPartitions(here.name(), src.partitions()));
            if (result.isOk())
            {
                LOG.info("Mirror '{}': topic {} grown from {} to {} partitions", mirror.name(), here.name(),
                    here.partitions(), src.partitions());
            }
            else
            {
                errors.add("topic " + here.name() + ": adding partitions failed: " + result.messageOrDefault());
            }
        }
        final Map<String, String> target;
        try
        {
            target = TopicConfigControl.mirrorableConfigs(src.configs());
        }
        catch (final InvalidConfigurationException e)
        {
            errors.add("topic " + here.name() + ": source configs cannot be applied: " + e.getMessage());
            return;
        }
        target.put(MirrorDefinition.MIRROR_NAME_CONFIG, mirror.name());
        if (!target.equals(new TreeMap<>(here.config())))
        {
            final MirrorOpResult result = await(controller.syncTopicConfigs(here.name(), src.configs()));
            if (result.isOk())
            {
                LOG.info("Mirror '{}': topic {} configs synced from the source ({})", mirror.name(), here.name(),
                    result.messageOrDefault());
            }
            else
            {
                errors.add("topic " + here.name() + ": config sync failed: " + result.messageOrDefault());
            }
        }
    }

    private void syncGroupOffsets(final MirrorDefinition mirror, final SourceClusterClient source,
        final Map<String, MirrorController.TopicView> attached, final List<String> errors)
    {
        if (attached.isEmpty())
        {
            return;
        }
        final Map<String, Map<TopicPartition, Long>> copied =
            copiedOffsets.computeIfAbsent(mirror.name(), k -> new HashMap<>());
        final List<String> groups;
        try
        {
            groups = source.listConsumerGroups();
        }
        catch (final org.apache.kafka.common.errors.UnsupportedVersionException e)
        {
            errors.add("consumer group offsets are not synced: " + e.getMessage());
            return;
        }
        for (final String group : groups)
        {
            final Map<TopicPartition, OffsetAndMetadata> offsets;
            try
            {
                offsets = source.listConsumerGroupOffsets(group);
            }
            catch (final RuntimeException e)
            {
                // One group the source cannot describe now (deleted meanwhile, its coordinator moving) must not
                // stop the others.
                errors.add("reading the offsets of group " + group + " at the source failed: " + e.getMessage());
                continue;
            }
            final Map<TopicPartition, Long> done = copied.computeIfAbsent(group, k -> new HashMap<>());
            final Map<TopicPartition, OffsetAndMetadata> toCopy = new LinkedHashMap<>();
            for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet())
            {
                final MirrorController.TopicView topic = attached.get(e.getKey().topic());
                if (topic == null || e.getKey().partition() >= topic.partitions() || e.getValue().offset() < 0)
                {
                    continue;
                }
                final Long previous = done.get(e.getKey());
                if (previous == null || previous != e.getValue().offset())
                {
                    toCopy.put(e.getKey(), new OffsetAndMetadata(e.getValue().offset(), e.getValue().metadata()));
                }
            }
            if (toCopy.isEmpty())
            {
                continue;
            }
            try
            {
                offsetWriter.commit(group, toCopy);
                for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : toCopy.entrySet())
                {
                    done.put(e.getKey(), e.getValue().offset());
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
            catch (final Exception e)
            {
                if (activeOnDestination(e))
                {
                    // The group has members here (it runs on this cluster already): its own commits win, as
                    // MirrorMaker 2 leaves a target group with members alone. Kafka's coordinator refuses an
                    // admin commit to such a group with UNKNOWN_MEMBER_ID.
                    activeGroupsSkipped.computeIfAbsent(mirror.name(), k -> new AtomicLong()).incrementAndGet();
                    LOG.debug("mirror {}: group {} has members on this cluster; its offsets are not synced",
                        mirror.name(), group);
                    continue;
                }
                errors.add("copying offsets of group " + group + " failed: " + e);
            }
        }
    }

    private static boolean activeOnDestination(final Throwable error)
    {
        for (Throwable cause = error; cause != null; cause = cause.getCause())
        {
            if (cause instanceof org.apache.kafka.common.errors.UnknownMemberIdException
                || cause instanceof org.apache.kafka.common.errors.StaleMemberEpochException)
            {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------ add topics

    private Map<String, MirrorOpResult> doAddTopics(final String mirrorName, final List<String> names,
        final List<String> patterns)
    {
        final Map<String, MirrorOpResult> results = new LinkedHashMap<>();
        final Optional<MirrorDefinition> found = await(controller.mirror(mirrorName));
        if (found.isEmpty())
        {
            final MirrorOpResult unknown = MirrorOpResult.error(Errors.RESOURCE_NOT_FOUND,
                "mirror '" + mirrorName + "' does not exist");
            names.forEach(n -> results.put(n, unknown));
            patterns.forEach(p -> results.put(p, unknown));
            return results;
        }
        final MirrorDefinition mirror = found.get();
        final List<String> goodPatterns = new ArrayList<>();
        for (final String pattern : patterns)
        {
            try
            {
                Pattern.compile(pattern);
                goodPatterns.add(pattern);
            }
            catch (final PatternSyntaxException e)
            {
                results.put(pattern, MirrorOpResult.error(Errors.INVALID_REQUEST,
                    "'" + pattern + "' is not a valid regular expression: " + e.getDescription()));
            }
        }
        if (!names.isEmpty())
        {
            Map<String, SourceClusterClient.SourceTopic> described = null;
            try
            {
                described = clientFor(mirror).describeTopics(names);
            }
            catch (final RuntimeException e)
            {
                if (e instanceof SourceClusterClient.SourceUnavailableException)
                {
                    dropClient(mirrorName);
                }
                final MirrorOpResult unreachable = MirrorOpResult.error(Errors.NETWORK_EXCEPTION,
                    "source cluster " + mirror.sourceBootstrapServers() + " of mirror '" + mirrorName
                        + "' could not be reached: " + e.getMessage());
                names.forEach(n -> results.put(n, unreachable));
            }
            if (described != null)
            {
                final List<SourceClusterClient.SourceTopic> toCreate = new ArrayList<>();
                for (final String name : names)
                {
                    final SourceClusterClient.SourceTopic src = described.get(name);
                    if (src == null)
                    {
                        results.put(name, MirrorOpResult.error(Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic '" + name
                            + "' does not exist at source cluster " + mirror.sourceBootstrapServers()));
                        continue;
                    }
                    final String sourceMirror = MirrorTopicConfig.activeMirror(src.configs());
                    if (sourceMirror != null && existsHere(name))
                    {
                        // The source's copy is mirrored from elsewhere, most likely from this very topic: taking
                        // it over would make the original read-only and truncate it to the source's copy.
                        results.put(name, MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + name
                            + "' is itself mirrored at source cluster " + mirror.sourceBootstrapServers()
                            + " (mirror '" + sourceMirror + "') and exists here: mirroring it back would make a "
                            + "loop; remove it from that mirror at the source first (failover)"));
                        continue;
                    }
                    toCreate.add(src);
                    results.put(name, null); // keeps the answer in the order of the names asked
                }
                results.putAll(createInCommits(mirrorName, toCreate));
            }
        }
        if (!goodPatterns.isEmpty())
        {
            final MirrorOpResult added = await(controller.addMirrorIncludes(mirrorName, goodPatterns));
            goodPatterns.forEach(p -> results.put(p, added));
            if (added.isOk())
            {
                await(controller.mirror(mirrorName)).ifPresent(this::syncMirrorSafely);
            }
        }
        return results;
    }

    // ---------------------------------------------------------------------------------------------- helpers

    /**
     * Creates {@code topics} as mirror topics of {@code mirrorName} in metadata commits of at most
     * {@link #MAX_PARTITIONS_PER_COMMIT} partitions each, each awaited before the next is sent (one topic larger
     * than that is a commit of its own). One commit per topic made an add of 1,000 topics take minutes (about 5
     * commits a second); one commit for all of them (100k partition records, 10 MB) kept the metadata quorum's
     * leader busy past its followers' fetch timeout, and the quorum elected another leader and dropped it.
     */
    private Map<String, MirrorOpResult> createInCommits(final String mirrorName,
        final List<SourceClusterClient.SourceTopic> topics)
    {
        final Map<String, MirrorOpResult> results = new LinkedHashMap<>();
        List<SourceClusterClient.SourceTopic> chunk = new ArrayList<>();
        int partitions = 0;
        for (final SourceClusterClient.SourceTopic topic : topics)
        {
            if (!chunk.isEmpty() && partitions + topic.partitions() > MAX_PARTITIONS_PER_COMMIT)
            {
                results.putAll(await(controller.createMirrorTopics(mirrorName, chunk)));
                chunk = new ArrayList<>();
                partitions = 0;
            }
            chunk.add(topic);
            partitions += Math.max(0, topic.partitions());
        }
        if (!chunk.isEmpty())
        {
            results.putAll(await(controller.createMirrorTopics(mirrorName, chunk)));
        }
        return results;
    }

    private boolean existsHere(final String topic)
    {
        return await(controller.topics()).topics().stream().anyMatch(t -> t.name().equals(topic));
    }

    /** Source topics matching an include regex and no exclude regex, sorted. */
    static List<String> matching(final MirrorDefinition mirror, final Collection<String> sourceTopics)
    {
        final List<Pattern> includes = compile(mirror.includeTopics());
        final List<Pattern> excludes = compile(mirror.excludeTopics());
        final List<String> out = new ArrayList<>();
        for (final String topic : new java.util.TreeSet<>(sourceTopics))
        {
            if (anyMatches(includes, topic) && !anyMatches(excludes, topic))
            {
                out.add(topic);
            }
        }
        return out;
    }

    private static List<Pattern> compile(final List<String> regexes)
    {
        final List<Pattern> out = new ArrayList<>();
        for (final String regex : regexes)
        {
            try
            {
                out.add(Pattern.compile(regex));
            }
            catch (final PatternSyntaxException e)
            {
                // The controller refuses bad regexes; one from an older log matches nothing.
            }
        }
        return out;
    }

    private static boolean anyMatches(final List<Pattern> patterns, final String topic)
    {
        for (final Pattern p : patterns)
        {
            if (p.matcher(topic).matches())
            {
                return true;
            }
        }
        return false;
    }

    private SourceClusterClient clientFor(final MirrorDefinition mirror)
    {
        final ClientEntry entry = clients.get(mirror.name());
        if (entry != null && sameSource(entry.definition, mirror))
        {
            return entry.client;
        }
        if (entry != null)
        {
            closeQuietly(entry.client);
            clients.remove(mirror.name());
        }
        final SourceClusterClient client;
        try
        {
            client = clientFactory.apply(mirror);
        }
        catch (final RuntimeException e)
        {
            throw new SourceClusterClient.SourceUnavailableException("cannot open a client to source cluster "
                + mirror.sourceBootstrapServers() + " of mirror '" + mirror.name() + "': " + e.getMessage(), e);
        }
        clients.put(mirror.name(), new ClientEntry(mirror, client));
        return client;
    }

    private static boolean sameSource(final MirrorDefinition a, final MirrorDefinition b)
    {
        return a.sourceBootstrapServers().equals(b.sourceBootstrapServers())
            && a.sourceConfigs().equals(b.sourceConfigs());
    }

    private void dropClient(final String mirrorName)
    {
        final ClientEntry entry = clients.remove(mirrorName);
        if (entry != null)
        {
            closeQuietly(entry.client);
        }
    }

    private void closeClientsOfRemovedMirrors(final Set<String> mirrors)
    {
        for (final String name : new ArrayList<>(clients.keySet()))
        {
            if (!mirrors.contains(name))
            {
                dropClient(name);
                copiedOffsets.remove(name);
                lastErrors.remove(name);
            }
        }
    }

    /** The controller's answer, waited for a bounded time; a failure as an IllegalStateException. */
    static <T> T await(final CompletableFuture<T> future)
    {
        try
        {
            return future.get(CONTROLLER_WAIT_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the controller", e);
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException("the controller failed: " + e.getCause(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IllegalStateException("the controller did not answer within " + CONTROLLER_WAIT_MS + " ms", e);
        }
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final Exception e)
        {
            LOG.debug("closing {} failed: {}", closeable, e.toString());
        }
    }

    private record ClientEntry(MirrorDefinition definition, SourceClusterClient client)
    {
    }

    /** Commits offsets through an Admin on this cluster's own listener, created at first use. */
    static final class AdminGroupOffsetWriter implements GroupOffsetWriter
    {
        private static final long TIMEOUT_MS = 10_000;

        private final Supplier<Map<String, Object>> clientConfigs;
        private Admin admin;

        AdminGroupOffsetWriter(final Supplier<Map<String, Object>> clientConfigs)
        {
            this.clientConfigs = clientConfigs;
        }

        @Override
        public synchronized void commit(final String groupId, final Map<TopicPartition, OffsetAndMetadata> offsets)
            throws Exception
        {
            if (admin == null)
            {
                final Properties props = new Properties();
                props.putAll(clientConfigs.get());
                props.put(AdminClientConfig.CLIENT_ID_CONFIG, "mirror-offset-sync");
                admin = Admin.create(props);
            }
            admin.alterConsumerGroupOffsets(groupId, offsets).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }

        @Override
        public synchronized void close()
        {
            if (admin != null)
            {
                admin.close(Duration.ofSeconds(5));
                admin = null;
            }
        }
    }
}
