package io.syncmirror.broker.mirror.sync;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.SyncCommitFence;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.mirror.SyncRegistrationLedger;
import io.syncmirror.broker.simulation.SimulatedEvents;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The sync control plane under a seeded simulation, in the manner of Kafka's RaftEventSimulationTest: the real
 * {@link SyncControl} on each of two destination brokers and the real {@link SyncRegistrationLedger} on the source,
 * joined by a router that delays requests and answers (some past the sender's timeout, so a request the sender
 * gave up on may still land), loses them, and runs each broker's requests one at a time as its links do. Partition
 * leadership moves between the brokers (and with partition 0 the topic's driving), brokers crash (their requests
 * on the wire may still land; their answers are lost) and restart with a new sync control, lags come and go, and
 * operators act at random times: {@code --alter --sync}, {@code --alter --async} (which commits ASYNC at once, as
 * the API does) and {@code --release-sync} at the source. In a quarter of the seeds the destination fails the
 * topic over, at the worst moment it finds: while a Register is on its way that lands after its sender gave up on
 * it. Time is simulated. After the chaos the network heals and the topic must settle where the spec says.
 *
 * <p>Invariants, checked after every event:
 * <ul>
 * <li>zero RPO: while the destination's effective type is SYNC the source gates on the mirror, unless an operator
 * released it there (the Released marker; the destination then demotes) or the topic fails over;</li>
 * <li>hazard 6: a partition's reports never stop while the source gates on the mirror;</li>
 * <li>the Released marker is sticky: only a Register with RecoveryPromotion=true re-establishes the registration;</li>
 * <li>Registers and Unregisters reach the source only from the broker driving the topic when it sent them (or
 * from a failover);</li>
 * <li>settled: desired SYNC ends effective SYNC with the source gating and no marker; desired ASYNC ends ASYNC with
 * the source not gating and no partition reporting; a failed-over topic ends ASYNC with the source not gating.</li>
 * </ul>
 * Planted mutants caught: an admission rule that lets any Register through the Released marker, and a failover
 * whose Unregister and ASYNC commit carry no number.
 * A failing seed prints itself; {@code -Dsync.simulation.seed=N} runs that one alone.
 */
class SyncControlSimulationTest
{
    private static final String MIRROR = "m";
    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAMQ");
    private static final int PARTITIONS = 2;
    private static final int BROKERS = 2;
    private static final long REQUEST_TIMEOUT_MS = 300;
    private static final long BACKOFF_MS = 50;
    private static final long BACKOFF_MAX_MS = 400;
    private static final long DEMOTE_TIMEOUT_MS = 500;
    private static final int CHAOS_STEPS = 400;
    private static final int SETTLE_STEPS = 600;
    /** The end of a failing seed's trace that its message shows; more when one seed runs alone. */
    private static final int TRACE_LINES = System.getProperty("sync.simulation.seed") == null ? 60 : 1_000;

    /** The source's admission: the real ledger, or a planted mutant of it. */
    interface Source
    {
        List<SyncRegistrationLedger.Result> register(boolean recoveryPromotion, long driverEpoch);

        /** An Unregister numbered {@code driverEpoch}, or an operator's release (-1). */
        List<SyncRegistrationLedger.Result> unregister(boolean release, long driverEpoch);

        boolean released();
    }

    @Test
    @DisplayName("SU-01 SU-05 SU-06 SU-12 sync control simulation: zero RPO, hazard 6, the sticky Released marker "
        + "and the driver rule hold, and every topic settles as the spec says, over 1,000 seeds")
    void shouldHoldTheInvariantsForEverySeed()
    {
        final String one = System.getProperty("sync.simulation.seed");
        final long first = one == null ? 0 : Long.parseLong(one);
        final long count = one == null ? Long.getLong("sync.simulation.seeds", 1_000L) : 1;
        for (long seed = first; seed < first + count; seed++)
        {
            final World world = new World(seed, World::realLedger);
            try
            {
                world.run();
            }
            catch (final AssertionError | RuntimeException e)
            {
                fail("seed " + seed + " (rerun: -Dsync.simulation.seed=" + seed + "): " + e.getMessage() + "\n" +
                    world.events.trace(), e);
            }
        }
    }

    @Test
    @DisplayName("the simulation catches a planted mutant of the admission rule: a source that lets any Register "
        + "through its Released marker")
    void shouldCatchAnAdmissionRuleThatIgnoresTheReleasedMarker()
    {
        assertTrue(firstFailingSeed(world -> new Source()
        {
            private final Source real = World.realLedger(world);

            @Override
            public List<SyncRegistrationLedger.Result> register(final boolean recoveryPromotion,
                final long driverEpoch)
            {
                return real.register(true, driverEpoch); // the mutant: every Register passes as a recovery
            }

            @Override
            public List<SyncRegistrationLedger.Result> unregister(final boolean release, final long driverEpoch)
            {
                return real.unregister(release, driverEpoch);
            }

            @Override
            public boolean released()
            {
                return real.released();
            }
        }) >= 0, "no seed caught the mutant");
    }

    @Test
    @DisplayName("the simulation catches a planted mutant of the failover: its Unregister and ASYNC commit without "
        + "a number, so a Register a driver sent before can land after them and gate the source again")
    void shouldCatchAFailoverThatDoesNotNumberItsRequests()
    {
        final long seed = firstFailingSeed(World::realLedger, world -> world.failoverUnnumbered = true, 1_000);
        System.out.println("sync control simulation: the unnumbered failover is caught by seed " + seed);
        assertTrue(seed >= 0, "no seed caught the mutant");
    }

    private static long firstFailingSeed(final java.util.function.Function<World, Source> source)
    {
        return firstFailingSeed(source, world -> { }, 200);
    }

    private static long firstFailingSeed(final java.util.function.Function<World, Source> source,
        final java.util.function.Consumer<World> plant, final int seeds)
    {
        for (long seed = 0; seed < seeds; seed++)
        {
            try
            {
                final World world = new World(seed, source);
                plant.accept(world);
                world.run();
            }
            catch (final AssertionError | RuntimeException e)
            {
                return seed;
            }
        }
        return -1;
    }

    /** A partition as its current leader coordinates it. */
    private static final class Part implements SyncPartition
    {
        final int index;
        final World world;
        final int leaderEpoch;
        boolean reporting;
        long failingSince = -1L;
        short failure;

        Part(final int index, final World world)
        {
            this.index = index;
            this.world = world;
            this.leaderEpoch = world.leaderEpoch[index];
        }

        @Override
        public int index()
        {
            return index;
        }

        @Override
        public boolean mirroring()
        {
            return true;
        }

        @Override
        public long lag()
        {
            return world.lag[index];
        }

        @Override
        public boolean reportingSync()
        {
            return reporting;
        }

        @Override
        public long syncFailingSince()
        {
            return failingSince;
        }

        @Override
        public short lastSyncFailure()
        {
            return failure;
        }

        @Override
        public byte desiredMirrorType()
        {
            return world.desired[index];
        }

        @Override
        public int registerAttempts()
        {
            return world.attempts[index];
        }

        @Override
        public boolean registrationOwed()
        {
            return world.owed[index];
        }

        @Override
        public int leaderEpoch()
        {
            return leaderEpoch;
        }
    }

    /** A request through the router: when it lands (or never), its answer, and the sender's deadline. */
    private static final class Call
    {
        final int broker;
        final String what;
        final java.util.function.Supplier<Object> apply;
        final CompletableFuture<Object> answer = new CompletableFuture<>();
        /** It lands after its sender gave up on it. */
        boolean landsLate;

        Call(final int broker, final String what, final java.util.function.Supplier<Object> apply)
        {
            this.broker = broker;
            this.what = what;
            this.apply = apply;
        }
    }

    /** One seeded run. */
    private static final class World
    {
        final long seed;
        final Random random;
        final SimulatedEvents events = new SimulatedEvents(1_000, TRACE_LINES);
        boolean chaos = true;
        /** The chaos step from which the destination fails the topic over, or -1 (most seeds). */
        final int failoverStep;
        /** A planted mutant: the failover's Unregister and ASYNC commit carry no number. */
        boolean failoverUnnumbered;
        boolean failedOver;
        /** The failover finished: the topic left the mirror, and the controller refuses SYNC for it. */
        boolean removedFromMirror;
        /** A failover's Unregister reached the source. */
        boolean failoverUnregistered;

        // The destination: records persisted per partition, the image's effective type, leaders, lags.
        final byte[] desired = new byte[PARTITIONS];
        final int[] attempts = new int[PARTITIONS];
        final boolean[] owed = new boolean[PARTITIONS];
        final long[] lag = new long[PARTITIONS];
        final int[] leader = new int[PARTITIONS];
        final int[] leaderEpoch = new int[PARTITIONS];
        byte effective = MirrorType.ASYNC.id();
        /** The destination controller's highest driver number applied to the topic's type. */
        long typeFence = SyncCommitFence.NONE;
        final Broker[] brokers = new Broker[BROKERS];

        // The source.
        final Source source;
        boolean gating;

        World(final long seed, final java.util.function.Function<World, Source> source)
        {
            this.seed = seed;
            this.random = SimulatedEvents.random(seed);
            this.failoverStep = random.nextInt(4) == 0 ? random.nextInt(CHAOS_STEPS) : -1;
            Arrays.fill(desired, MirrorType.ASYNC.id());
            for (int b = 0; b < BROKERS; b++)
            {
                brokers[b] = new Broker(b);
            }
            for (int p = 0; p < PARTITIONS; p++)
            {
                leader[p] = random.nextInt(BROKERS);
                brokers[leader[p]].led.put(p, new Part(p, this));
            }
            this.source = source.apply(this);
        }

        static Source realLedger(final World world)
        {
            final Map<String, byte[]> records = new HashMap<>();
            final SyncRegistrationLedger ledger = new SyncRegistrationLedger(new SyncRegistrationLedger.LedgerRecords()
            {
                @Override
                public Optional<byte[]> read(final byte[] key)
                {
                    return Optional.ofNullable(records.get(Arrays.toString(key)));
                }

                @Override
                public void write(final byte[] key, final byte[] value)
                {
                    records.put(Arrays.toString(key), value);
                }
            }, (topicId, mirrorName, registered) ->
            {
                world.gating = registered;
                return ApiError.NONE;
            }, () -> true);
            return new Source()
            {
                @Override
                public List<SyncRegistrationLedger.Result> register(final boolean recoveryPromotion,
                    final long driverEpoch)
                {
                    return ledger.register(MIRROR, List.of(new SyncRegistrationLedger.RegisterTopic(TOPIC, TOPIC_ID,
                        recoveryPromotion)), driverEpoch);
                }

                @Override
                public List<SyncRegistrationLedger.Result> unregister(final boolean release, final long driverEpoch)
                {
                    return ledger.unregister(MIRROR, List.of(new SyncRegistrationLedger.Entry(TOPIC, TOPIC_ID,
                        false)), release, driverEpoch);
                }

                @Override
                public boolean released()
                {
                    return ledger.entriesOf(MIRROR).stream().anyMatch(SyncRegistrationLedger.Entry::released);
                }
            };
        }

        void run()
        {
            for (int step = 0; step < CHAOS_STEPS; step++)
            {
                // The worst moment from its step on: while a Register is on its way that lands after its sender
                // gave up on it (and so after the failover's Unregister, which its link sends next).
                if (failoverStep >= 0 && !failedOver && step >= failoverStep &&
                    (lateRegisterInFlight() || step == CHAOS_STEPS - 1))
                {
                    failover();
                }
                act();
                advance(1 + random.nextInt(40));
            }
            chaos = false;
            events.note("the network heals; crashed brokers restart; operators and leaders stay put");
            for (int b = 0; b < BROKERS; b++)
            {
                if (brokers[b].down)
                {
                    brokers[b] = new Broker(b);
                }
            }
            Arrays.fill(lag, 0L);
            if (failedOver)
            {
                finishFailover();
            }
            for (int step = 0; step < SETTLE_STEPS; step++)
            {
                for (final Broker broker : brokers)
                {
                    broker.tick();
                }
                advance(20);
            }
            checkSettled();
        }

        /** Runs the events due up to {@code ms} from now, checking the invariants after each. */
        void advance(final long ms)
        {
            events.advance(ms, this::checkInvariants);
        }

        /** One random thing: a broker's tick, mostly; sometimes a leader move, a lag, an operator. */
        void act()
        {
            final int roll = random.nextInt(100);
            if (roll < 68)
            {
                final Broker broker = brokers[random.nextInt(BROKERS)];
                if (!broker.down)
                {
                    broker.tick();
                    checkInvariants("tick");
                }
            }
            else if (roll < 76)
            {
                moveLeader(random.nextInt(PARTITIONS));
            }
            else if (roll < 78)
            {
                crashOrRestart(random.nextInt(BROKERS));
            }
            else if (roll < 86)
            {
                final int p = random.nextInt(PARTITIONS);
                lag[p] = random.nextInt(3) == 0 ? 1 + random.nextInt(100) : 0;
            }
            else if (failedOver)
            {
                return; // the topic is no longer a mirror: no operator acts on its sync any more
            }
            else if (roll < 93)
            {
                alter(MirrorType.SYNC);
            }
            else if (roll < 98)
            {
                alter(MirrorType.ASYNC);
            }
            else
            {
                events.note("source operator: --release-sync");
                source.unregister(true, -1L);
                checkInvariants("release");
            }
        }

        /**
         * The destination fails the topic over (MirrorFailover.stopSync on each broker leading its partitions): the
         * Unregister at the source, numbered to close partition 0's leader epoch, then the effective type ASYNC with
         * the same number; the partitions stop reporting and the coordinators no longer step the topic. The topic
         * leaves the mirror a little later, from when the controller refuses SYNC for it.
         */
        void failover()
        {
            events.note("destination operator: failover");
            failedOver = true;
            Arrays.fill(desired, MirrorType.ASYNC.id());
            final long closing = failoverUnnumbered ? -1L : SyncCommitFence.closing(leaderEpoch[0]);
            for (final Broker broker : brokers)
            {
                if (broker.down || broker.led.isEmpty())
                {
                    continue;
                }
                broker.control.unregisterOnStop(MIRROR, TOPIC_ID, TOPIC, closing);
                broker.led.values().forEach(part -> part.reporting = false);
                if (effective == MirrorType.SYNC.id())
                {
                    broker.commitMirrorType(TOPIC_ID, MirrorType.ASYNC.id(), closing);
                }
            }
            events.schedule(50 + random.nextInt(200), "the topic leaves the mirror", () -> removedFromMirror = true);
        }

        boolean lateRegisterInFlight()
        {
            return Arrays.stream(brokers).anyMatch(b -> b.inFlight != null && b.inFlight.landsLate &&
                b.inFlight.what.startsWith("register"));
        }

        /**
         * After the chaos: a failover whose ASYNC commit was lost retries it (the partition goes FAILED and tries
         * again), and one whose Unregister never reached the source is released there by an operator, as the
         * failover's warning asks.
         */
        void finishFailover()
        {
            removedFromMirror = true;
            if (effective == MirrorType.SYNC.id())
            {
                effective = MirrorType.ASYNC.id();
                events.note("the failover retries its ASYNC commit");
            }
            if (!failoverUnregistered && gating)
            {
                events.note("source operator: --release-sync (the failover's Unregister never arrived)");
                source.unregister(true, -1L);
            }
        }

        void moveLeader(final int p)
        {
            final int from = leader[p];
            final int to = (from + 1) % BROKERS;
            if (brokers[to].down)
            {
                return;
            }
            final Part old = brokers[from].led.remove(p);
            old.reporting = false; // released: the new leader reports for it
            leader[p] = to;
            leaderEpoch[p]++;
            brokers[to].led.put(p, new Part(p, this));
            events.note("partition " + p + " leader " + from + " -> " + to);
        }

        /**
         * A broker crashes (one stays up): its partitions move to the other, its requests already on the wire may
         * still land, and their answers go nowhere. A crashed broker restarts with a new sync control: what it
         * knew is gone, but for what partition 0's records persisted.
         */
        void crashOrRestart(final int b)
        {
            if (brokers[b].down)
            {
                brokers[b] = new Broker(b);
                events.note("broker " + b + " restarts");
                return;
            }
            if (brokers[(b + 1) % BROKERS].down)
            {
                return;
            }
            brokers[b].down = true;
            for (final int p : new ArrayList<>(brokers[b].led.keySet()))
            {
                moveLeader(p);
            }
            events.note("broker " + b + " crashes");
        }

        /** {@code --alter}: the desired type on every partition; ASYNC is also committed at once, as the API does. */
        void alter(final MirrorType type)
        {
            events.note("destination operator: --alter --" + type.name().toLowerCase());
            for (int p = 0; p < PARTITIONS; p++)
            {
                desired[p] = type.id();
                brokers[leader[p]].control.desiredTypeSet(TOPIC_ID, MIRROR, TOPIC, type.id(), p == 0);
            }
            if (type == MirrorType.ASYNC)
            {
                effective = MirrorType.ASYNC.id();
            }
            checkInvariants("alter");
        }

        void checkInvariants(final String after)
        {
            if (!failedOver && effective == MirrorType.SYNC.id() && !gating && !source.released())
            {
                throw new AssertionError("zero RPO: effective SYNC while the source does not gate on the mirror " +
                    "(after " + after + ")");
            }
        }

        void checkSettled()
        {
            final boolean reporting = Arrays.stream(brokers).flatMap(b -> b.led.values().stream())
                .anyMatch(p -> p.reporting);
            if (failedOver)
            {
                if (effective != MirrorType.ASYNC.id() || gating)
                {
                    throw new AssertionError("failed over, yet effective " + effective + " and source gating " +
                        gating + ": a request a driver sent before the failover landed after it");
                }
            }
            else if (desired[0] == MirrorType.SYNC.id())
            {
                if (effective != MirrorType.SYNC.id() || !gating || source.released())
                {
                    throw new AssertionError("settled with desired SYNC but effective " + effective + ", source " +
                        "gating " + gating + ", released " + source.released());
                }
            }
            else if (effective != MirrorType.ASYNC.id() || gating || reporting)
            {
                throw new AssertionError("settled with desired ASYNC but effective " + effective + ", source " +
                    "gating " + gating + ", reporting " + reporting);
            }
        }

        /** A destination broker: its sync control, the partitions it leads, and its links (one request at a time). */
        final class Broker implements SyncHost, SyncLinks
        {
            final int id;
            final Map<Integer, Part> led = new HashMap<>();
            final SyncControl control;
            final ArrayDeque<Call> queued = new ArrayDeque<>();
            Call inFlight;
            /** Crashed: no tick, and no answer or timeout reaches its sync control. */
            boolean down;

            Broker(final int id)
            {
                this.id = id;
                this.control = new SyncControl(this, this, BACKOFF_MS, BACKOFF_MAX_MS);
                control.demoteTimeoutMs(DEMOTE_TIMEOUT_MS);
            }

            void tick()
            {
                // What the source answered the reports of the partitions reporting here.
                for (final Part part : led.values())
                {
                    if (part.reporting && !gating)
                    {
                        part.failingSince = part.failingSince < 0 ? events.nowMs() : part.failingSince;
                        part.failure = MirrorError.INVALID_SYNC_REGISTRATION.code();
                    }
                    else
                    {
                        part.failingSince = -1L;
                        part.failure = 0;
                    }
                }
                final List<Part> local = new ArrayList<>(led.values());
                local.sort((a, b) -> Integer.compare(a.index, b.index));
                // A failed-over topic's partitions are STOPPED: the coordinator steps them no more.
                control.beginTick(local.isEmpty() || failedOver ? Set.of() : Set.of(TOPIC_ID));
                if (!local.isEmpty() && !failedOver)
                {
                    control.step(MIRROR, TOPIC_ID, TOPIC, PARTITIONS, effective == MirrorType.SYNC.id(), local,
                        events.nowMs());
                }
            }

            @Override
            public void reporting(final SyncPartition partition, final boolean reporting)
            {
                final Part part = (Part)partition;
                if (part.reporting && !reporting && gating)
                {
                    throw new AssertionError("hazard 6: partition " + part.index + " on broker " + id +
                        " stopped reporting while the source gates on the mirror");
                }
                if (part.reporting != reporting)
                {
                    events.note("broker " + id + " partition " + part.index + " reporting " + reporting);
                }
                part.reporting = reporting;
            }

            @Override
            public void registerAttempts(final SyncPartition driver, final int count)
            {
                attempts[driver.index()] = count;
            }

            @Override
            public CompletableFuture<Void> registrationOwed(final SyncPartition driver, final boolean value)
            {
                owed[driver.index()] = value; // partition 0's state, which its next leader loads
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public void promotionError(final SyncPartition driver, final String message)
            {
            }

            @Override
            public void wakeup()
            {
            }

            private boolean driving()
            {
                return leader[0] == id;
            }

            @SuppressWarnings("unchecked")
            private <T> CompletableFuture<T> send(final String what, final java.util.function.Supplier<Object> apply)
            {
                final Call call = new Call(id, what, apply);
                queued.add(call);
                startNext();
                return (CompletableFuture<T>)(CompletableFuture<?>)call.answer;
            }

            /** Starts the next queued request when none is out: the links run one request at a time. */
            private void startNext()
            {
                if (inFlight != null || queued.isEmpty())
                {
                    return;
                }
                final Call call = queued.poll();
                inFlight = call;
                final boolean driverWhenSent = driving();
                final boolean failedOverWhenSent = failedOver;
                events.note("broker " + id + " sends " + call.what);
                final boolean lost = chaos && random.nextInt(10) == 0;
                final long landsInMs = chaos && random.nextInt(8) == 0 ? random.nextLong(2 * REQUEST_TIMEOUT_MS) :
                    1 + random.nextInt(10);
                call.landsLate = !lost && landsInMs > REQUEST_TIMEOUT_MS;
                if (!lost)
                {
                    events.schedule(landsInMs, "lands: " + call.what, () ->
                    {
                        final boolean failoverRequest = call.what.startsWith("unregister") && failedOverWhenSent;
                        if (call.what.startsWith("register") || call.what.startsWith("unregister"))
                        {
                            if (!driverWhenSent && !failoverRequest)
                            {
                                throw new AssertionError(call.what + " from broker " + id +
                                    ", which did not drive the topic when it sent it");
                            }
                        }
                        final Object answer = call.apply.get();
                        events.note("source applies " + call.what + " from broker " + id + ": " + answer);
                        failoverUnregistered |= failoverRequest && answer instanceof Answer a &&
                            a.errorCode() == Errors.NONE.code();
                        final boolean answerLost = chaos && random.nextInt(10) == 0;
                        if (!answerLost)
                        {
                            events.schedule(chaos ? random.nextInt(20) : 1, "answer: " + call.what, () -> answered(call,
                                answer));
                        }
                    });
                }
                events.schedule(REQUEST_TIMEOUT_MS, "timeout: " + call.what, () ->
                {
                    if (!down && !call.answer.isDone())
                    {
                        events.note("broker " + id + " times out " + call.what);
                        call.answer.completeExceptionally(new IOException(call.what + " timed out"));
                        inFlight = null;
                        startNext();
                    }
                });
            }

            private void answered(final Call call, final Object answer)
            {
                if (down || call.answer.isDone())
                {
                    return; // the sender crashed, or gave up on it
                }
                if (answer instanceof Throwable failure)
                {
                    call.answer.completeExceptionally(failure);
                }
                else
                {
                    call.answer.complete(answer);
                }
                inFlight = null;
                startNext();
            }

            @Override
            public CompletableFuture<Answer> register(final String mirrorName, final Uuid topicId,
                final String topicName, final boolean recoveryPromotion, final long driverEpoch)
            {
                return send("register" + (recoveryPromotion ? " recovery" : "") + " #" + number(driverEpoch), () ->
                {
                    final boolean wasReleased = source.released();
                    final SyncRegistrationLedger.Result result = source.register(recoveryPromotion, driverEpoch)
                        .get(0);
                    if (wasReleased && !recoveryPromotion && result.errorCode() == Errors.NONE.code())
                    {
                        throw new AssertionError("the Released marker let a Register without RecoveryPromotion in");
                    }
                    return new Answer(result.errorCode(), result.errorMessage());
                });
            }

            @Override
            public CompletableFuture<Answer> unregister(final String mirrorName, final Uuid topicId,
                final String topicName, final long driverEpoch)
            {
                return send("unregister #" + number(driverEpoch), () ->
                {
                    final SyncRegistrationLedger.Result result = source.unregister(false, driverEpoch).get(0);
                    return new Answer(result.errorCode(), result.errorMessage());
                });
            }

            private static String number(final long driverEpoch)
            {
                return (driverEpoch >>> 32) + "." + (driverEpoch & 0xffffffffL);
            }

            @Override
            public CompletableFuture<Void> commitMirrorType(final Uuid topicId, final byte mirrorType,
                final long driverEpoch)
            {
                return send("commit " + MirrorType.fromId(mirrorType) + " #" + number(driverEpoch), () ->
                {
                    // The destination controller's rules, as MirrorControl applies them.
                    if (removedFromMirror && mirrorType == MirrorType.SYNC.id())
                    {
                        return new IOException("INVALID_REQUEST: not a mirror topic");
                    }
                    if (SyncCommitFence.refuses(driverEpoch, typeFence))
                    {
                        return new IOException("FENCED_LEADER_EPOCH");
                    }
                    typeFence = SyncCommitFence.raised(typeFence, driverEpoch);
                    effective = mirrorType;
                    return null;
                });
            }

            @Override
            public CompletableFuture<Map<Uuid, Map<Integer, RemotePartition>>> remotePartitions(
                final String mirrorName)
            {
                final Map<Integer, RemotePartition> others = new HashMap<>();
                for (int p = 0; p < PARTITIONS; p++)
                {
                    if (leader[p] != id)
                    {
                        final Part part = brokers[leader[p]].led.get(p);
                        others.put(p, new RemotePartition(MirrorPartitionState.MIRRORING, lag[p],
                            part.failingSince < 0 ? 0 : events.nowMs() - part.failingSince));
                    }
                }
                return CompletableFuture.completedFuture(Map.of(TOPIC_ID, others));
            }
        }
    }
}
