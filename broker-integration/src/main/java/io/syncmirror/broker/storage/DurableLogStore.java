package io.syncmirror.broker.storage;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.CleanerConfig;
import org.apache.kafka.storage.internals.log.LogCleaner;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's durable logs under its {@code log.dirs}, each a Kafka {@code UnifiedLog}; thread-safe: the map of
 * logs is concurrent, creation and deletion are serialized on the store, checkpoints on their own lock.
 *
 * <p>Each log directory carries Kafka's own files, so a directory written here reads as a Kafka broker's would:
 * {@code replication-offset-checkpoint} (HW), {@code recovery-point-offset-checkpoint},
 * {@code log-start-offset-checkpoint} ({@code OffsetCheckpointFile}), and {@code .kafka_cleanshutdown}
 * ({@code CleanShutdownFileHandler}), which is deleted at start and written last by {@link #close()}: its absence
 * at start means a crash, and every log found is then opened with {@code lastShutdownClean=false}, which makes
 * {@code UnifiedLog} recover the segments above the recovery point and rebuild producer state from them. Topic ids
 * live in each partition directory's {@code partition.metadata}, which {@code UnifiedLog} keeps itself.
 *
 * <p>Threads: one {@link KafkaScheduler} (daemon threads {@code syncmirror-log-scheduler-*}), started before any
 * log opens because {@code UnifiedLog} schedules segment deletion, flush-after-roll and producer-id expiry on it
 * and a stopped scheduler drops them silently. It also runs the HW checkpoint every
 * {@code replica.high.watermark.checkpoint.interval.ms} and retention every {@code log.retention.check.interval.ms}.
 * {@link #close()} stops it.
 *
 * <p>Compaction: Kafka's own {@link LogCleaner} (threads {@code kafka-log-cleaner-thread-*}) over every log
 * whose config says {@code compact}, with its checkpoint {@code cleaner-offset-checkpoint} in each directory, as a
 * Kafka broker's LogManager runs it. It cleans below the log's last stable offset, which is bounded by the HW:
 * records that a leader change could still truncate are never cleaned (for a mirror partition the HW is at most
 * the source HW, so the destination cleans only what the source committed). Truncation and deletion stop a
 * cleaning of their log first ({@link CleaningGuard}), as Kafka's LogManager does.
 */
public final class DurableLogStore implements LogStore
{
    public static final String HW_CHECKPOINT_FILE = "replication-offset-checkpoint";
    public static final String RECOVERY_POINT_CHECKPOINT_FILE = "recovery-point-offset-checkpoint";
    public static final String LOG_START_OFFSET_CHECKPOINT_FILE = "log-start-offset-checkpoint";
    public static final long HW_CHECKPOINT_INTERVAL_MS_DEFAULT = 5000L;
    public static final long RETENTION_CHECK_INTERVAL_MS_DEFAULT = 300_000L;

    /** transaction.max.timeout.ms's default: how long a transaction may stay open before producer state drops it. */
    private static final int MAX_TRANSACTION_TIMEOUT_MS = 900_000;
    /** producer.id.expiration.ms and producer.id.expiration.check.interval.ms defaults. */
    private static final int PRODUCER_ID_EXPIRATION_MS = 86_400_000;
    private static final int PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 600_000;

    private static final Logger LOG = LoggerFactory.getLogger(DurableLogStore.class);

    private final List<LogDir> logDirs = new ArrayList<>();
    private final Map<String, String> defaultTopicConfig;
    /** Partition directories another owner opens (the metadata quorum's Raft log). */
    private final java.util.Set<String> notOwned;
    private final Time time;
    private final KafkaScheduler scheduler;
    private final BrokerTopicStats brokerTopicStats = new BrokerTopicStats();
    private final LogDirFailureChannel logDirFailureChannel;
    private final ProducerStateManagerConfig producerStateManagerConfig =
        new ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS, false);
    private final ConcurrentHashMap<TopicPartition, UnifiedLogPartitionLog> logs = new ConcurrentHashMap<>();
    /** The same logs as {@link #logs}, in the form the cleaner reads (it picks the compacted ones itself). */
    private final ConcurrentHashMap<TopicPartition, UnifiedLog> cleanerView = new ConcurrentHashMap<>();
    private final CleaningGuard cleaning;
    private final Object checkpointLock = new Object();
    private final boolean lastShutdownClean;
    private boolean closed;

    public DurableLogStore(final List<Path> logDirs, final Map<String, String> defaultTopicConfig, final Time time)
    {
        this(logDirs, defaultTopicConfig, time, HW_CHECKPOINT_INTERVAL_MS_DEFAULT, RETENTION_CHECK_INTERVAL_MS_DEFAULT);
    }

    /** A store without a log cleaner (tests of the store itself). */
    public DurableLogStore(final List<Path> logDirs, final Map<String, String> defaultTopicConfig, final Time time,
        final long hwCheckpointIntervalMs, final long retentionCheckIntervalMs)
    {
        this(logDirs, defaultTopicConfig, time, hwCheckpointIntervalMs, retentionCheckIntervalMs,
            new CleanerConfig(false));
    }

    /**
     * Opens (creating when absent) every log directory and loads every partition found in them.
     *
     * @param defaultTopicConfig broker defaults in topic-config key form (retention.ms, segment.bytes, ...)
     * @param hwCheckpointIntervalMs replica.high.watermark.checkpoint.interval.ms; 0 or less disables the timer
     * @param retentionCheckIntervalMs log.retention.check.interval.ms; 0 or less disables the timer
     * @param cleanerConfig the log cleaner's settings; {@code enableCleaner=false} runs none (nothing is compacted)
     */
    public DurableLogStore(final List<Path> logDirs, final Map<String, String> defaultTopicConfig, final Time time,
        final long hwCheckpointIntervalMs, final long retentionCheckIntervalMs, final CleanerConfig cleanerConfig)
    {
        this(logDirs, defaultTopicConfig, time, hwCheckpointIntervalMs, retentionCheckIntervalMs, cleanerConfig,
            java.util.Set.of());
    }

    /**
     * As above, leaving the partition directories named in {@code notOwned} alone: the metadata quorum's Raft
     * log ({@code __cluster_metadata-0}) lives among the logs, as in Kafka, but Kafka's Raft opens it itself.
     */
    public DurableLogStore(final List<Path> logDirs, final Map<String, String> defaultTopicConfig, final Time time,
        final long hwCheckpointIntervalMs, final long retentionCheckIntervalMs, final CleanerConfig cleanerConfig,
        final java.util.Set<String> notOwned)
    {
        this.notOwned = java.util.Set.copyOf(notOwned);
        if (logDirs.isEmpty())
        {
            throw new IllegalArgumentException("At least one log directory is needed");
        }
        this.defaultTopicConfig = Map.copyOf(defaultTopicConfig);
        this.time = time;
        this.logDirFailureChannel = new LogDirFailureChannel(logDirs.size());
        // Built before the logs load (it only holds the live map of them), started once they have; it opens its
        // checkpoint file in each directory, so they must exist first (a first start creates them).
        createDirectories(logDirs);
        this.cleaning = cleanerConfig.enableCleaner ? new CleaningGuard(new LogCleaner(cleanerConfig,
            absoluteFiles(logDirs), cleanerView, logDirFailureChannel, time)) : CleaningGuard.NONE;
        this.scheduler = new KafkaScheduler(1, true, "syncmirror-log-scheduler-");
        scheduler.startup();
        boolean allClean = true;
        try
        {
            for (final Path path : logDirs)
            {
                final LogDir dir = new LogDir(path.toAbsolutePath().toFile(), logDirFailureChannel);
                this.logDirs.add(dir);
            }
            for (final LogDir dir : this.logDirs)
            {
                // A directory without logs (a first start) has nothing to recover.
                allClean &= loadLogs(dir) == 0 || dir.hadCleanShutdown;
            }
        }
        catch (final IOException e)
        {
            shutdownScheduler();
            throw new UncheckedIOException("Cannot open log directories " + logDirs, e);
        }
        catch (final RuntimeException e)
        {
            shutdownScheduler();
            throw e;
        }
        this.lastShutdownClean = allClean;
        cleaning.startup();
        if (hwCheckpointIntervalMs > 0)
        {
            scheduler.schedule("syncmirror-checkpoint", this::checkpointQuietly, hwCheckpointIntervalMs,
                hwCheckpointIntervalMs);
        }
        if (retentionCheckIntervalMs > 0)
        {
            scheduler.schedule("syncmirror-retention", this::retentionQuietly, retentionCheckIntervalMs,
                retentionCheckIntervalMs);
        }
    }

    /** Opens every partition directory under {@code dir}; returns how many. */
    private int loadLogs(final LogDir dir) throws IOException
    {
        int loaded = 0;
        final Map<TopicPartition, Long> hws = dir.hwCheckpoint.read();
        final Map<TopicPartition, Long> recoveryPoints = dir.recoveryPointCheckpoint.read();
        final Map<TopicPartition, Long> logStartOffsets = dir.logStartOffsetCheckpoint.read();
        final File[] children = dir.dir.listFiles();
        if (children == null)
        {
            return 0;
        }
        for (final File child : children)
        {
            if (!child.isDirectory() || !isPartitionDirName(child.getName()) || notOwned.contains(child.getName()))
            {
                continue;
            }
            final TopicPartition tp = UnifiedLog.parseTopicPartitionName(child);
            final UnifiedLog log = UnifiedLog.create(child, logConfig(Map.of()), logStartOffsets.getOrDefault(tp, 0L),
                recoveryPoints.getOrDefault(tp, 0L), scheduler, brokerTopicStats, time, MAX_TRANSACTION_TIMEOUT_MS,
                producerStateManagerConfig, PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, logDirFailureChannel,
                dir.hadCleanShutdown, Optional.empty());
            // The HW is not part of the log: restore it, bounded by what recovery kept.
            log.updateHighWatermark(Math.min(hws.getOrDefault(tp, 0L), log.logEndOffset()));
            if (logs.putIfAbsent(tp, new UnifiedLogPartitionLog(log, cleaning)) != null)
            {
                log.close();
                throw new KafkaException("Partition " + tp + " found in more than one log directory");
            }
            cleanerView.put(tp, log);
            loaded++;
        }
        return loaded;
    }

    /** {@code <topic>-<partition>}, not Kafka's {@code -delete}, {@code -future} or {@code -stray} directories. */
    private static boolean isPartitionDirName(final String name)
    {
        final int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1)
        {
            return false;
        }
        for (int i = dash + 1; i < name.length(); i++)
        {
            if (!Character.isDigit(name.charAt(i)))
            {
                return false;
            }
        }
        return true;
    }

    private LogConfig logConfig(final Map<String, String> topicConfig)
    {
        final Map<String, String> merged = new HashMap<>(defaultTopicConfig);
        merged.putAll(topicConfig);
        return new LogConfig(merged, new HashSet<>(topicConfig.keySet()));
    }

    @Override
    public PartitionLog getOrCreate(final TopicPartition partition, final Uuid topicId,
        final Map<String, String> topicConfig)
    {
        final UnifiedLogPartitionLog existing = logs.get(partition);
        if (existing != null)
        {
            existing.maybeAssignTopicId(topicId);
            existing.unifiedLog().updateConfig(logConfig(topicConfig));
            return existing;
        }
        synchronized (this)
        {
            ensureOpen();
            final UnifiedLogPartitionLog raced = logs.get(partition);
            if (raced != null)
            {
                return raced;
            }
            final LogDir dir = leastLoadedDir();
            final File partitionDir = new File(dir.dir, UnifiedLog.logDirName(partition));
            final Optional<Uuid> id = Uuid.ZERO_UUID.equals(topicId) ? Optional.empty() : Optional.of(topicId);
            try
            {
                final UnifiedLog log = UnifiedLog.create(partitionDir, logConfig(topicConfig), 0L, 0L, scheduler,
                    brokerTopicStats, time, MAX_TRANSACTION_TIMEOUT_MS, producerStateManagerConfig,
                    PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, logDirFailureChannel, true, id);
                final UnifiedLogPartitionLog created = new UnifiedLogPartitionLog(log, cleaning);
                logs.put(partition, created);
                cleanerView.put(partition, log);
                return created;
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException("Cannot create the log of " + partition + " in " + dir.dir, e);
            }
        }
    }

    private LogDir leastLoadedDir()
    {
        final Map<String, Integer> counts = new HashMap<>();
        for (final UnifiedLogPartitionLog log : logs.values())
        {
            counts.merge(log.unifiedLog().parentDir(), 1, Integer::sum);
        }
        LogDir best = null;
        int bestCount = Integer.MAX_VALUE;
        for (final LogDir dir : logDirs)
        {
            if (logDirFailureChannel.hasOfflineLogDir(dir.dir.getAbsolutePath()))
            {
                continue;
            }
            final int count = counts.getOrDefault(dir.dir.getAbsolutePath(), 0);
            if (count < bestCount)
            {
                best = dir;
                bestCount = count;
            }
        }
        if (best == null)
        {
            throw new org.apache.kafka.common.errors.KafkaStorageException("Every log directory is offline");
        }
        return best;
    }

    @Override
    public Optional<PartitionLog> get(final TopicPartition partition)
    {
        return Optional.ofNullable(logs.get(partition));
    }

    @Override
    public Collection<PartitionLog> all()
    {
        return List.copyOf(logs.values());
    }

    @Override
    public void updateConfig(final TopicPartition partition, final Map<String, String> topicConfig)
    {
        final UnifiedLogPartitionLog log = logs.get(partition);
        if (log != null)
        {
            log.unifiedLog().updateConfig(logConfig(topicConfig));
        }
    }

    @Override
    public void delete(final TopicPartition partition)
    {
        final UnifiedLogPartitionLog log;
        synchronized (this)
        {
            log = logs.remove(partition);
            cleanerView.remove(partition);
        }
        if (log != null)
        {
            // As Kafka's LogManager: stop a cleaning of this log, delete it, drop its cleaner checkpoint entry.
            cleaning.abort(partition);
            final File parent = log.unifiedLog().parentDirFile();
            log.delete();
            cleaning.forget(parent, partition);
            checkpoint();
        }
    }

    @Override
    public void checkpoint()
    {
        synchronized (checkpointLock)
        {
            for (final LogDir dir : logDirs)
            {
                final String path = dir.dir.getAbsolutePath();
                if (logDirFailureChannel.hasOfflineLogDir(path))
                {
                    continue;
                }
                final Map<TopicPartition, Long> hws = new HashMap<>();
                final Map<TopicPartition, Long> recoveryPoints = new HashMap<>();
                final Map<TopicPartition, Long> logStartOffsets = new HashMap<>();
                for (final Map.Entry<TopicPartition, UnifiedLogPartitionLog> e : logs.entrySet())
                {
                    final UnifiedLog log = e.getValue().unifiedLog();
                    if (path.equals(log.parentDir()))
                    {
                        hws.put(e.getKey(), log.highWatermark());
                        recoveryPoints.put(e.getKey(), log.recoveryPoint());
                        logStartOffsets.put(e.getKey(), log.logStartOffset());
                    }
                }
                dir.hwCheckpoint.write(hws);
                dir.recoveryPointCheckpoint.write(recoveryPoints);
                dir.logStartOffsetCheckpoint.write(logStartOffsets);
            }
        }
    }

    private void checkpointQuietly()
    {
        try
        {
            checkpoint();
        }
        catch (final RuntimeException e)
        {
            LOG.error("Checkpoint failed", e);
        }
    }

    /**
     * Retention, as Kafka's LogManager runs it: on the logs that are not compacted, with their cleaning paused
     * meanwhile; a {@code compact,delete} log's retention is the cleaner thread's, after it cleans.
     */
    private void retentionQuietly()
    {
        final Set<TopicPartition> paused = cleaning.pauseNonCompacted(cleanerView);
        try
        {
            for (final TopicPartition partition : paused)
            {
                final UnifiedLogPartitionLog log = logs.get(partition);
                try
                {
                    if (log != null)
                    {
                        log.deleteOldSegments();
                    }
                }
                catch (final RuntimeException e)
                {
                    LOG.error("Retention failed on {}", partition, e);
                }
            }
        }
        finally
        {
            cleaning.resume(paused);
        }
    }

    @Override
    public boolean lastShutdownClean()
    {
        return lastShutdownClean;
    }

    /** The directories the logs live in, as given. */
    public List<Path> logDirs()
    {
        final List<Path> dirs = new ArrayList<>();
        for (final LogDir dir : logDirs)
        {
            dirs.add(dir.dir.toPath());
        }
        return dirs;
    }

    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        // Tasks and the cleaner first, so no checkpoint, retention or cleaning runs against a closing log.
        shutdownScheduler();
        cleaning.shutdown();
        boolean clean = true;
        for (final UnifiedLogPartitionLog log : logs.values())
        {
            try
            {
                log.close();
            }
            catch (final RuntimeException e)
            {
                clean = false;
                LOG.error("Closing {} failed", log.topicPartition(), e);
            }
        }
        // After the close the recovery points are at the flushed LEOs: checkpoint them before marking clean.
        checkpoint();
        if (clean)
        {
            for (final LogDir dir : logDirs)
            {
                if (!logDirFailureChannel.hasOfflineLogDir(dir.dir.getAbsolutePath()))
                {
                    dir.markCleanShutdown();
                }
            }
        }
        brokerTopicStats.close();
    }

    /**
     * Stops as a crash would: no checkpoint, no flush, no clean-shutdown marker, so the next start on these
     * directories recovers every log (in-process crash tests; a real crash needs no call).
     */
    public void crash()
    {
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
        }
        shutdownScheduler();
        cleaning.shutdown();
        for (final UnifiedLogPartitionLog log : logs.values())
        {
            try
            {
                log.abandon();
            }
            catch (final RuntimeException e)
            {
                LOG.warn("Releasing {} failed", log.topicPartition(), e);
            }
        }
        brokerTopicStats.close();
    }

    /** Kafka's cleaner, when this store runs one (tests wait for a cleaning with it). */
    public Optional<LogCleaner> cleaner()
    {
        return cleaning.cleaner();
    }

    private static void createDirectories(final List<Path> dirs)
    {
        for (final Path dir : dirs)
        {
            try
            {
                Files.createDirectories(dir);
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException("Cannot create log directory " + dir, e);
            }
        }
    }

    private static List<File> absoluteFiles(final List<Path> dirs)
    {
        final List<File> files = new ArrayList<>();
        for (final Path dir : dirs)
        {
            files.add(dir.toAbsolutePath().toFile());
        }
        return files;
    }

    private void shutdownScheduler()
    {
        try
        {
            scheduler.shutdown();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("The log store is closed");
        }
    }

    /** One log directory and its checkpoint files. */
    private static final class LogDir
    {
        final File dir;
        final OffsetCheckpointFile hwCheckpoint;
        final OffsetCheckpointFile recoveryPointCheckpoint;
        final OffsetCheckpointFile logStartOffsetCheckpoint;
        final CleanShutdownFileHandler cleanShutdown;
        final boolean hadCleanShutdown;

        LogDir(final File dir, final LogDirFailureChannel failureChannel) throws IOException
        {
            this.dir = dir;
            Files.createDirectories(dir.toPath());
            hwCheckpoint = new OffsetCheckpointFile(new File(dir, HW_CHECKPOINT_FILE), failureChannel);
            recoveryPointCheckpoint = new OffsetCheckpointFile(new File(dir, RECOVERY_POINT_CHECKPOINT_FILE),
                failureChannel);
            logStartOffsetCheckpoint = new OffsetCheckpointFile(new File(dir, LOG_START_OFFSET_CHECKPOINT_FILE),
                failureChannel);
            cleanShutdown = new CleanShutdownFileHandler(dir.getAbsolutePath());
            hadCleanShutdown = cleanShutdown.exists();
            if (hadCleanShutdown)
            {
                // Gone from now on, so a crash before the next clean close is seen as one.
                try
                {
                    cleanShutdown.delete();
                }
                catch (final Exception e)
                {
                    throw new IOException("Cannot delete the clean-shutdown file in " + dir, e);
                }
            }
        }

        void markCleanShutdown()
        {
            try
            {
                cleanShutdown.write(-1L);
            }
            catch (final Exception e)
            {
                LOG.error("Cannot write the clean-shutdown file in {}", dir, e);
            }
        }
    }
}
