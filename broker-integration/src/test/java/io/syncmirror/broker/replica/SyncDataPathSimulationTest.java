package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.simulation.SimulatedEvents;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The sync data path under a seeded simulation: a source partition (the real {@link Partition}, its real hot-path
 * gate and {@link MirrorLinks}) gating on three destination clusters, whose brokers are modelled on the
 * destination's rules (Partition, SyncReporter): a leader fetches from the source (truncating what diverged,
 * hazard 1) and reads to the source LEO while its mirror is registered; followers fetch from their leader and join
 * the ISR only at or above the leader's HW, its epoch start offset and the join floor its reports raised (hazard
 * 2); leaders report their replicas' LEOs and ISR through a router that delays, drops, duplicates and reorders.
 * Chaos moves the source leader (truncating its unacknowledged tail), moves destination leaders, crashes and
 * restarts followers, shrinks ISRs, and registers and releases mirrors (as many at once as the source has links,
 * as the controller admits), whose links the source then reuses. A report's mirror link is resolved when it is
 * sent, so one that lands after its link changed holder meets the generation fence.
 *
 * <p>Invariants, after every event:
 * <ul>
 * <li>the source HW never goes down (within an epoch or across the leader moves);</li>
 * <li>zero RPO: every record acknowledged while a mirror was registered is held, with the source's epoch, by
 * every member of that mirror's ISR (any of which a failover may elect);</li>
 * <li>after the chaos, with every replica up and the network healed, the source acknowledges its whole log.</li>
 * </ul>
 * Planted mutants each break one rule and are caught. A failing seed prints itself;
 * {@code -Dsync.datapath.seed=N} runs that one alone.
 */
class SyncDataPathSimulationTest
{
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAQQ");
    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final int MIRRORS = 3;
    /**
     * Fewer links than mirrors, and the controller's admission rule (no more registered mirrors than links): a
     * released mirror's link goes to the next mirror that registers.
     */
    private static final int LINKS = 2;
    private static final int REPLICAS = 3;
    private static final int MIN_ISR = 2;
    private static final int CHAOS_STEPS = 300;
    private static final int SETTLE_STEPS = 200;
    /** Seeds a mutant may take to be caught. */
    private static final int MUTANT_SEEDS = 500;
    private static final int TRACE_LINES = System.getProperty("sync.datapath.seed") == null ? 60 : 2_000;

    /** What a run plants: nothing, or one broken rule. */
    enum Mutant
    {
        NONE,
        /** The source credits a report whatever source epoch it was validated in (hazard 1). */
        SOURCE_IGNORES_VALIDATED_EPOCH,
        /** A destination follower joins the ISR at the leader's HW, without the reported floor (hazard 2). */
        NO_JOIN_FLOOR,
        /** The join floor rises when a report is answered instead of when it goes out (hazard 2). */
        JOIN_FLOOR_ON_ANSWER,
        /** A follower joins a new leader's ISR below the leader's epoch start offset (Kafka's rule). */
        NO_EPOCH_START_RULE,
        /** A report is credited to whoever holds the link it resolved when sent (no generation fence). */
        LINK_WITHOUT_GENERATION
    }

    @Test
    @DisplayName("SU-04 SU-13 sync data path simulation: the source HW never goes down, every acknowledged record "
        + "is in every registered mirror's ISR, and a healed system acknowledges everything, over 1,000 seeds")
    void shouldHoldTheInvariantsForEverySeed()
    {
        final String one = System.getProperty("sync.datapath.seed");
        final long first = one == null ? 0 : Long.parseLong(one);
        final long count = one == null ? Long.getLong("sync.datapath.seeds", 1_000L) : 1;
        for (long seed = first; seed < first + count; seed++)
        {
            try (World world = new World(seed, Mutant.NONE))
            {
                try
                {
                    world.run();
                }
                catch (final AssertionError | RuntimeException e)
                {
                    fail("seed " + seed + " (rerun: -Dsync.datapath.seed=" + seed + "): " + e.getMessage() + "\n" +
                        world.events.trace(), e);
                }
            }
        }
    }

    @Test
    @DisplayName("the data path simulation catches each planted mutant: hazard 1 at the source, hazard 2's floor "
        + "(missing, or raised late), Kafka's epoch start rule, and a link reused without its generation")
    void shouldCatchEveryPlantedMutant()
    {
        for (final Mutant mutant : Mutant.values())
        {
            if (mutant != Mutant.NONE)
            {
                final long seed = firstFailingSeed(mutant);
                System.out.println("data path simulation: " + mutant + " caught by seed " + seed);
                assertTrue(seed >= 0, "no seed of " + MUTANT_SEEDS + " caught " + mutant);
            }
        }
    }

    @Test
    @DisplayName("how often each planted mutant is caught over 1,000 seeds: runs with -Dsync.datapath.rates=true")
    void shouldMeasureHowOftenEachMutantIsCaught()
    {
        org.junit.jupiter.api.Assumptions.assumeTrue(Boolean.getBoolean("sync.datapath.rates"),
            "a measurement, not a check: -Dsync.datapath.rates=true runs it");
        for (final Mutant mutant : Mutant.values())
        {
            int caught = 0;
            int stalled = 0;
            for (long seed = 0; seed < 1000; seed++)
            {
                try (World world = new World(seed, mutant))
                {
                    world.run();
                }
                catch (final SafetyViolation e)
                {
                    caught++;
                }
                catch (final AssertionError e)
                {
                    stalled++;
                }
            }
            System.out.println("data path simulation: " + mutant + " breaks safety in " + caught + " and stalls " +
                stalled + " of 1000 seeds");
        }
    }

    /** The first seed whose run breaks a safety invariant under {@code mutant}, or -1. */
    private static long firstFailingSeed(final Mutant mutant)
    {
        for (long seed = 0; seed < MUTANT_SEEDS; seed++)
        {
            try (World world = new World(seed, mutant))
            {
                world.run();
            }
            catch (final SafetyViolation e)
            {
                return seed;
            }
            catch (final AssertionError e)
            {
                // A liveness failure is not what the mutant is planted to show.
            }
        }
        return -1;
    }

    /** A broken safety invariant (not a stall). */
    private static final class SafetyViolation extends AssertionError
    {
        private static final long serialVersionUID = 1L;

        SafetyViolation(final String message)
        {
            super(message);
        }
    }

    /** One seeded run: the source partition, the destinations, the router's events. */
    private static final class World implements AutoCloseable
    {
        final long seed;
        final Mutant mutant;
        final Random random;
        final SimulatedEvents events = new SimulatedEvents(0, TRACE_LINES);
        boolean chaos = true;

        final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
        final ReplicaManager replicas = SingleBrokerReplicas.create(logs, LINKS);
        final Map<Uuid, Set<String>> registrations = new ConcurrentHashMap<>();
        Partition source;
        int sourceEpoch = 1;
        /** The source leader epoch of each record of the source log: what a replica must hold at each offset. */
        final List<Integer> sourceLog = new ArrayList<>();
        long highestHw;
        final Destination[] destinations = new Destination[MIRRORS];
        /**
         * This seed's weights of append, ISR shrink, crash or restart, destination leader move, source leader move,
         * register or release.
         */
        final int[] weights;
        final int totalWeight;
        /** How often a destination leader reports in a step, by seed. */
        final int reportPercent;

        World(final long seed, final Mutant mutant)
        {
            this.seed = seed;
            this.mutant = mutant;
            this.random = SimulatedEvents.random(seed);
            weights = new int[] {20 + random.nextInt(60), random.nextInt(10), random.nextInt(10), random.nextInt(8),
                random.nextInt(6), random.nextInt(6)};
            reportPercent = 20 + random.nextInt(81);
            totalWeight = java.util.Arrays.stream(weights).sum();
            replicas.syncRegistrations(topicId -> registrations.getOrDefault(topicId, Set.of()));
            source = SingleBrokerReplicas.lead(replicas, TP, TOPIC_ID, sourceEpoch, Map.of());
            for (int m = 0; m < MIRRORS; m++)
            {
                destinations[m] = new Destination("dr-" + m, 100 * (m + 1));
            }
        }

        @Override
        public void close()
        {
            replicas.close();
            logs.close();
        }

        void run()
        {
            for (int step = 0; step < CHAOS_STEPS; step++)
            {
                act();
                advance(1 + random.nextInt(10));
            }
            chaos = false;
            events.note("chaos ends: every replica up, the network healed, as many mirrors registered as links");
            for (final Destination d : destinations)
            {
                d.heal();
                if (!d.registered && registeredCount() < LINKS)
                {
                    register(d);
                }
            }
            for (int step = 0; step < SETTLE_STEPS; step++)
            {
                for (final Destination d : destinations)
                {
                    d.leaderFetch();
                    for (int r = 0; r < REPLICAS; r++)
                    {
                        d.followerFetch(r);
                    }
                    d.report();
                }
                advance(10);
            }
            final long hw = source.log().highWatermark();
            if (hw != sourceLog.size())
            {
                throw new AssertionError("healed, yet the source acknowledges " + hw + " of " + sourceLog.size() +
                    " records");
            }
        }

        void advance(final long ms)
        {
            events.advance(ms, this::check);
        }

        /**
         * One step: the replicas' own progress (each destination's leader fetches and reports, its followers fetch,
         * each at the rate this seed gave it), then one random action. Each seed draws its own weights for the
         * kinds of action and its own rates, so seeds differ in kind, not only in order: one runs with slow
         * followers and frequent leader moves, another with a busy producer and mirrors swapped often.
         */
        void act()
        {
            for (final Destination d : destinations)
            {
                if (random.nextInt(100) < d.fetchPercent[d.leader])
                {
                    d.leaderFetch();
                }
                for (int r = 0; r < REPLICAS; r++)
                {
                    if (random.nextInt(100) < d.fetchPercent[r])
                    {
                        d.followerFetch(r);
                    }
                }
                if (random.nextInt(100) < reportPercent)
                {
                    d.report();
                }
            }
            check("progress");
            int roll = random.nextInt(totalWeight);
            int kind = 0;
            while (roll >= weights[kind])
            {
                roll -= weights[kind++];
            }
            final Destination d = destinations[random.nextInt(MIRRORS)];
            switch (kind)
            {
                case 0 -> append(1 + random.nextInt(3));
                case 1 -> d.shrinkIsr();
                case 2 -> d.crashOrRestartFollower();
                case 3 -> d.moveLeader();
                case 4 -> moveSourceLeader();
                default -> registerOrRelease(d);
            }
            check("act");
        }

        void registerOrRelease(final Destination d)
        {
            if (d.registered)
            {
                release(d);
                final Destination next = destinations[random.nextInt(MIRRORS)];
                if (next != d && !next.registered && random.nextBoolean())
                {
                    register(next); // an operator swaps one mirror for another: it takes the released link
                }
            }
            else if (registeredCount() < LINKS)
            {
                register(d);
            }
        }

        /**
         * A producer's records, one batch each: destinations here copy record by record, so every offset must be a
         * batch boundary (a log truncates whole batches).
         */
        void append(final int records)
        {
            for (int i = 0; i < records; i++)
            {
                source.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(("r" +
                    sourceLog.size()).getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
                sourceLog.add(sourceEpoch);
            }
            if (source.log().logEndOffset() != sourceLog.size())
            {
                throw new IllegalStateException("the source log has " + source.log().logEndOffset() + " records, " +
                    "the simulation " + sourceLog.size());
            }
            events.note("source appends " + records + " at epoch " + sourceEpoch + ", LEO " + sourceLog.size());
        }

        /** Another source replica takes over: it holds every acknowledged record, and maybe some of the rest. */
        void moveSourceLeader()
        {
            final long hw = source.log().highWatermark();
            final int keep = (int)(hw + random.nextInt((int)(sourceLog.size() - hw) + 1));
            replicas.onPartitionChanged(new PartitionState(TP.topic(), TOPIC_ID, 0, List.of(1, 2), List.of(1, 2), 2,
                sourceEpoch + 1, sourceEpoch + 1), Map.of());
            source.truncateTo(keep);
            sourceLog.subList(keep, sourceLog.size()).clear();
            sourceEpoch += 2;
            source = SingleBrokerReplicas.lead(replicas, TP, TOPIC_ID, sourceEpoch, Map.of());
            events.note("source leader moves: epoch " + sourceEpoch + ", log cut to " + keep + " (HW " + hw + ")");
        }

        int registeredCount()
        {
            int count = 0;
            for (final Destination d : destinations)
            {
                count += d.registered ? 1 : 0;
            }
            return count;
        }

        void register(final Destination d)
        {
            d.registered = true;
            d.registeredAtHw = source.log().highWatermark();
            d.acked = d.registeredAtHw;
            registrations.computeIfAbsent(TOPIC_ID, id -> new TreeSet<>()).add(d.name);
            replicas.onSyncRegistrationChanged(TOPIC_ID);
            events.note(d.name + " registered at HW " + d.registeredAtHw + " (link " +
                replicas.mirrorLinks().indexOf(d.name) + ")");
        }

        void release(final Destination d)
        {
            d.registered = false;
            registrations.get(TOPIC_ID).remove(d.name);
            replicas.onSyncRegistrationChanged(TOPIC_ID);
            events.note(d.name + " released");
        }

        /** The invariants, after every event. */
        void check(final String after)
        {
            final long hw = source.log().highWatermark();
            if (hw < highestHw)
            {
                throw new SafetyViolation("the source HW went down from " + highestHw + " to " + hw + " (after " +
                    after + ")");
            }
            highestHw = hw;
            for (final Destination d : destinations)
            {
                if (!d.registered)
                {
                    continue;
                }
                d.acked = Math.max(d.acked, hw);
                for (final int member : d.isr)
                {
                    final List<Integer> held = d.logs.get(member);
                    for (long offset = d.registeredAtHw; offset < d.acked; offset++)
                    {
                        if (offset >= held.size() || !held.get((int)offset).equals(sourceLog.get((int)offset)))
                        {
                            throw new SafetyViolation("zero RPO: " + d.name + " ISR member " + member + " lacks " +
                                "acknowledged offset " + offset + " (holds " + held.size() + " records" +
                                (offset < held.size() ? ", epoch " + held.get((int)offset) + " there instead of " +
                                    sourceLog.get((int)offset) : "") + "), acknowledged up to " + d.acked +
                                " (after " + after + ")");
                        }
                    }
                }
            }
        }

        /** One destination cluster's partition: three replicas, its leader's view and its reports. */
        final class Destination
        {
            final String name;
            final int firstReplicaId;
            final List<List<Integer>> logs = new ArrayList<>();
            final boolean[] alive = new boolean[REPLICAS];
            final Set<Integer> isr = new HashSet<>();
            /** The leader's view of each follower's LEO, from its last fetch; -1 unknown. */
            final long[] recordedLeo = new long[REPLICAS];
            /** How often each replica's fetches go through (a slow disk, a throttle), by seed. */
            final int[] fetchPercent = new int[REPLICAS];
            int leader;
            int leaderEpoch;
            int validatedSourceEpoch = -1;
            long lastSourceHw;
            long joinFloor = -1L;
            long epochStartOffset;
            boolean reportInFlight;
            boolean registered;
            long registeredAtHw;
            long acked;

            Destination(final String name, final int firstReplicaId)
            {
                this.name = name;
                this.firstReplicaId = firstReplicaId;
                for (int r = 0; r < REPLICAS; r++)
                {
                    logs.add(new ArrayList<>());
                    alive[r] = true;
                    isr.add(r);
                    fetchPercent[r] = random.nextInt(4) == 0 ? 5 + random.nextInt(30) : 50 + random.nextInt(51);
                }
                java.util.Arrays.fill(recordedLeo, -1L);
            }

            List<Integer> leaderLog()
            {
                return logs.get(leader);
            }

            /** The leader fetches from the source: truncates what diverged, then reads (to the LEO if registered). */
            void leaderFetch()
            {
                final List<Integer> own = leaderLog();
                final int common = commonPrefix(own, sourceLog);
                if (common < own.size())
                {
                    own.subList(common, own.size()).clear();
                    java.util.Arrays.fill(recordedLeo, -1L); // a truncated leader forgets its followers' progress
                    epochStartOffset = Math.min(epochStartOffset, common);
                    joinFloor = Math.min(joinFloor, common); // what was cut was never acknowledged
                    events.note(name + " leader " + leader + " truncates to " + common + " (diverged from the source)");
                }
                validatedSourceEpoch = sourceEpoch;
                final long limit = registered ? sourceLog.size() : source.log().highWatermark();
                final int read = Math.min(1 + random.nextInt(5), (int)Math.max(0, limit - own.size()));
                for (int i = 0; i < read; i++)
                {
                    own.add(sourceLog.get(own.size()));
                }
                lastSourceHw = source.log().highWatermark();
            }

            /** Follower {@code r} fetches from the leader, truncating to it first; it may join the ISR. */
            void followerFetch(final int r)
            {
                if (r == leader || !alive[r])
                {
                    return;
                }
                final List<Integer> own = logs.get(r);
                final int common = commonPrefix(own, leaderLog());
                if (common < own.size())
                {
                    own.subList(common, own.size()).clear();
                }
                recordedLeo[r] = own.size(); // the fetch offset the leader sees
                if (!isr.contains(r) && recordedLeo[r] >= joinThreshold())
                {
                    isr.add(r);
                    events.note(name + " replica " + r + " joins the ISR at " + recordedLeo[r] + " (threshold " +
                        joinThreshold() + ")");
                }
                final int read = Math.min(1 + random.nextInt(5), leaderLog().size() - own.size());
                for (int i = 0; i < read; i++)
                {
                    own.add(leaderLog().get(own.size()));
                }
            }

            /** What a follower's LEO must reach to join the ISR (Partition.proposedIsr's rule). */
            long joinThreshold()
            {
                long threshold = highWatermark();
                if (mutant != Mutant.NO_JOIN_FLOOR)
                {
                    threshold = Math.max(threshold, joinFloor);
                }
                if (mutant != Mutant.NO_EPOCH_START_RULE)
                {
                    threshold = Math.max(threshold, epochStartOffset);
                }
                return threshold;
            }

            /** The leader's HW: the source HW it last saw, capped by its ISR's known LEOs. */
            long highWatermark()
            {
                long hw = Math.min(lastSourceHw, leaderLog().size());
                for (final int member : isr)
                {
                    if (member != leader)
                    {
                        hw = Math.min(hw, Math.max(0, recordedLeo[member]));
                    }
                }
                return hw;
            }

            /** The leader reports its replicas and ISR to the source, one report at a time (SyncReporter). */
            void report()
            {
                if (reportInFlight || validatedSourceEpoch < 0)
                {
                    return;
                }
                final int[] ids = new int[REPLICAS];
                final long[] leos = new long[REPLICAS];
                for (int r = 0; r < REPLICAS; r++)
                {
                    ids[r] = firstReplicaId + r;
                    leos[r] = r == leader ? leaderLog().size() : recordedLeo[r];
                }
                final int[] isrIds = new int[isr.size()];
                long minLeo = Long.MAX_VALUE;
                int n = 0;
                for (final int member : new TreeSet<>(isr))
                {
                    isrIds[n++] = firstReplicaId + member;
                    minLeo = Math.min(minLeo, member == leader ? leaderLog().size() : recordedLeo[member]);
                }
                final long reportedMin = minLeo;
                if (mutant != Mutant.JOIN_FLOOR_ON_ANSWER)
                {
                    joinFloor = Math.max(joinFloor, reportedMin);
                }
                final int epoch = leaderEpoch;
                final int validated = validatedSourceEpoch;
                final long sentHandle = replicas.mirrorLinks().handleOf(name);
                reportInFlight = true;
                final String what = name + " report (leader " + leader + " epoch " + epoch + ", validated " +
                    validated + ", LEOs " + java.util.Arrays.toString(leos) + ", ISR " + new TreeSet<>(isr) + ")";
                final int copies = chaos && random.nextInt(20) == 0 ? 2 : 1;
                final boolean lost = chaos && random.nextInt(10) == 0;
                for (int copy = 0; copy < copies && !lost; copy++)
                {
                    events.schedule(1 + (chaos ? random.nextInt(40) : 0), "lands: " + what, () ->
                    {
                        final long handle = mutant == Mutant.LINK_WITHOUT_GENERATION && sentHandle >= 0 ?
                            (sentHandle & 0xFFFFFFFFL) | ((long)replicas.mirrorLinks().generationOf(
                                MirrorLinks.index(sentHandle)) << 32) : sentHandle;
                        final int validatedAsSeen = mutant == Mutant.SOURCE_IGNORES_VALIDATED_EPOCH ?
                            source.role().leaderEpoch() : validated;
                        final Partition.ReportResult result = handle == MirrorLinks.NO_HANDLE ?
                            Partition.ReportResult.NOT_REGISTERED : source.onMirrorReport(handle, epoch,
                                validatedAsSeen, ids, leos, REPLICAS, isrIds, isrIds.length, MIN_ISR);
                        events.note("source takes " + what + ": " + result + ", HW " + source.log().highWatermark());
                    });
                }
                // The answer comes after the report landed (or was lost), sometimes much later.
                final long answerMs = chaos ? 41 + random.nextInt(random.nextInt(5) == 0 ? 400 : 40) : 5;
                events.schedule(answerMs, "answer: " + what, () ->
                {
                    reportInFlight = false;
                    if (mutant == Mutant.JOIN_FLOOR_ON_ANSWER && epoch == leaderEpoch && !lost)
                    {
                        joinFloor = Math.max(joinFloor, reportedMin);
                    }
                });
            }

            /** The leader drops its most lagging follower from the ISR (one behind its LEO), as lag time would. */
            void shrinkIsr()
            {
                int out = -1;
                for (final int member : isr)
                {
                    if (member != leader && recordedLeo[member] < leaderLog().size() &&
                        (out < 0 || recordedLeo[member] < recordedLeo[out]))
                    {
                        out = member;
                    }
                }
                if (out >= 0)
                {
                    isr.remove(out);
                    events.note(name + " replica " + out + " leaves the ISR (at " + recordedLeo[out] + ")");
                }
            }

            void crashOrRestartFollower()
            {
                final int r = random.nextInt(REPLICAS);
                if (r == leader)
                {
                    return;
                }
                alive[r] = !alive[r];
                if (!alive[r])
                {
                    isr.remove(r);
                    recordedLeo[r] = -1L;
                }
                events.note(name + " replica " + r + (alive[r] ? " restarts" : " crashes"));
            }

            /** A clean election: another live ISR member leads; the old leader stays a follower, or crashed. */
            void moveLeader()
            {
                final List<Integer> candidates = new ArrayList<>();
                for (final int member : isr)
                {
                    if (member != leader && alive[member])
                    {
                        candidates.add(member);
                    }
                }
                if (candidates.isEmpty())
                {
                    return;
                }
                final int previous = leader;
                leader = candidates.get(random.nextInt(candidates.size()));
                leaderEpoch++;
                if (random.nextBoolean())
                {
                    alive[previous] = false;
                    isr.remove(previous);
                }
                java.util.Arrays.fill(recordedLeo, -1L);
                validatedSourceEpoch = -1;
                joinFloor = -1L; // a new reporter state on the new leader
                epochStartOffset = leaderLog().size();
                reportInFlight = false;
                events.note(name + " leader " + previous + " -> " + leader + " (epoch " + leaderEpoch + ", LEO " +
                    leaderLog().size() + ", ISR " + new TreeSet<>(isr) + ")");
            }

            /** Chaos is over: every replica runs again. */
            void heal()
            {
                java.util.Arrays.fill(alive, true);
            }
        }

        private static int commonPrefix(final List<Integer> a, final List<Integer> b)
        {
            final int n = Math.min(a.size(), b.size());
            for (int i = 0; i < n; i++)
            {
                if (!a.get(i).equals(b.get(i)))
                {
                    return i;
                }
            }
            return n;
        }
    }
}
