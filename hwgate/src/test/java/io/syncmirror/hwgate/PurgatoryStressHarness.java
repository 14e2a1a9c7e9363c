package io.syncmirror.hwgate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.offheap.PartitionRowDescriptor;
import io.syncmirror.offheap.PartitionTable;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A multi-threaded stress run of the partition table, the HW gate and the purgatory, checking invariants while
 * it runs. Threads: two appenders (each the leader of its own slots and the owner of a request shard), two local
 * followers, one mirror link (three destination replicas and their reported ISR), one control thread (local ISR
 * and mirror registration) and one monitor. Scheduling noise (yields) is injected at the points where a race
 * matters, equally in the real code's hooks and in the mutants'.
 *
 * <p>Invariants: the HW of a slot never decreases, as seen by any thread; with the membership version unchanged
 * around the read, every participating LEO read after observing HW = h is at least h; no wait succeeds while the
 * HW is below its required offset; every request is delivered exactly once; no wait stays pending for long after
 * the HW reached its offset (a lost wake-up); the HW does not stay for long below what the predicate allows (a
 * lost advance). Each appender keeps at most one request per slot in flight and the followers only chase the
 * leader, so a slot goes quiet after each append: a lost wake-up or advance is not rescued by a later report.
 *
 * <p>Runs in-process from {@link PurgatoryStressTest}, and as a main program for mutants, which can corrupt the
 * membership sequence lock and leave threads spinning: those run in a child JVM that is killed afterwards.
 */
final class PurgatoryStressHarness
{
    static final int SLOTS = 8;
    static final int MIRROR = 0;
    static final long DEADLINE_MS = 20_000;
    static final long LOST_WAKEUP_MS = 1_000;

    enum Mutant
    {
        NONE, PLAIN_HW_STORE, SKIP_RECHECK, BATCH_WITHOUT_FENCE
    }

    /** What a run saw. */
    static final class Result
    {
        final List<String> violations = new ArrayList<>();
        long begun;
        long delivered;
        long successes;
        long remoteUnderMin;
        long membershipChanges;
        long invariantReads;
        boolean membershipChurn;

        @Override
        public String toString()
        {
            return "begun=" + begun + " delivered=" + delivered + " successes=" + successes +
                " remoteUnderMin=" + remoteUnderMin + " membershipChanges=" + membershipChanges +
                " invariantReads=" + invariantReads + " membershipChurn=" + membershipChurn + " violations=" + violations.size() +
                (violations.isEmpty() ? "" : " first=" + violations.get(0));
        }
    }

    private final Mutant mutant;
    private final long seed;
    private final boolean membershipChurn;
    private final PartitionTable table = new PartitionTable(SLOTS, 3, 1, 3, WaiterRings.bytesFor(8))
    {
        @Override
        protected void fenceAfterBatch()
        {
            noise();
            if (mutant != Mutant.BATCH_WITHOUT_FENCE)
            {
                super.fenceAfterBatch();
            }
        }
    };
    private final HighWatermarkGate gate;
    private final DelayedProducePurgatory purgatory;
    private final AtomicBoolean producing = new AtomicBoolean(true);
    private final AtomicBoolean churning = new AtomicBoolean(true);
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicLong begun = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong successes = new AtomicLong();
    private final AtomicLong remoteUnderMin = new AtomicLong();
    private final AtomicLong membershipChanges = new AtomicLong();
    private final AtomicLong invariantReads = new AtomicLong();
    private final Map<Long, Boolean> deliveredCookies = new ConcurrentHashMap<>();
    private final long startNs = System.nanoTime();

    /**
     * @param membershipChurn whether the control and mirror threads change ISRs and registrations. Each change
     *                        drains the slot's FIFO, which also rescues a lost wake-up, so the run that must
     *                        expose a lost wake-up turns it off.
     */
    PurgatoryStressHarness(final Mutant mutant, final long seed, final boolean membershipChurn)
    {
        this.mutant = mutant;
        this.seed = seed;
        this.membershipChurn = membershipChurn;
        this.churning.set(membershipChurn);
        this.gate = new HighWatermarkGate(table)
        {
            @Override
            protected boolean publishHwWord(
                final AtomicBuffer buffer, final int offset, final long expected, final long update)
            {
                noise();
                if (mutant == Mutant.PLAIN_HW_STORE)
                {
                    buffer.putLongVolatile(offset, update);
                    return true;
                }
                return super.publishHwWord(buffer, offset, expected, update);
            }
        };
        this.purgatory = new DelayedProducePurgatory(gate, 8, 4)
        {
            @Override
            protected void recheckAfterWatch(final int slot, final long requiredOffset)
            {
                if (mutant != Mutant.SKIP_RECHECK)
                {
                    super.recheckAfterWatch(slot, requiredOffset);
                }
            }
        };
        for (int slot = 0; slot < SLOTS; slot++)
        {
            table.initSlot(slot, 0, 0b111, 2);
            table.mirrorIsr(slot, MIRROR, 0b111, 2);
            table.registeredMirrors(slot, 1 << MIRROR);
        }
    }

    private static void noise()
    {
        if ((Thread.currentThread().getId() + System.nanoTime()) % 8 == 0)
        {
            Thread.yield();
        }
    }

    /** Sometimes a preemption-sized pause, long enough for the followers and the mirror to catch up. */
    private static void appendNoise()
    {
        final long r = (Thread.currentThread().getId() + System.nanoTime()) % 16;
        if (r == 0)
        {
            Thread.yield();
        }
        else if (r == 1)
        {
            LockSupport.parkNanos(20_000);
        }
    }

    private long nowMs()
    {
        return (System.nanoTime() - startNs) / 1_000_000;
    }

    private void violation(final String what)
    {
        if (violations.size() < 100)
        {
            violations.add(what);
        }
    }

    /** Runs for {@code durationMs} (or until the first violation when {@code stopOnViolation}), then drains. */
    Result run(final long durationMs, final boolean stopOnViolation) throws InterruptedException
    {
        final List<Thread> threads = new ArrayList<>();
        final Appender[] appenders = {new Appender(0), new Appender(1)};
        for (final Appender appender : appenders)
        {
            threads.add(new Thread(appender, "appender-" + appender.id));
        }
        threads.add(new Thread(() -> follower(1), "follower-1"));
        threads.add(new Thread(() -> follower(2), "follower-2"));
        threads.add(new Thread(this::mirror, "mirror"));
        threads.add(new Thread(this::control, "control"));
        threads.add(new Thread(this::monitor, "monitor"));
        for (final Thread thread : threads)
        {
            thread.setDaemon(true);
            thread.start();
            if (thread.getName().startsWith("appender"))
            {
                appenders[thread.getName().endsWith("0") ? 0 : 1].thread = thread;
            }
        }
        final long endNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMs);
        while (System.nanoTime() < endNs && !(stopOnViolation && !violations.isEmpty()))
        {
            Thread.sleep(20);
        }
        churning.set(false); // the control and mirror threads restore full membership and stop changing it
        producing.set(false); // appenders stop beginning requests and wait for their in-flight ones
        for (final Thread thread : threads)
        {
            if (thread.getName().startsWith("appender"))
            {
                thread.join(DEADLINE_MS * 2);
            }
        }
        running.set(false);
        for (final Thread thread : threads)
        {
            thread.join(5_000);
            if (thread.isAlive())
            {
                violation(thread.getName() + " did not stop");
            }
        }
        final Result result = new Result();
        result.violations.addAll(violations);
        result.begun = begun.get();
        result.delivered = delivered.get();
        result.successes = successes.get();
        result.remoteUnderMin = remoteUnderMin.get();
        result.membershipChanges = membershipChanges.get();
        result.membershipChurn = membershipChurn;
        result.invariantReads = invariantReads.get();
        if (result.begun != result.delivered)
        {
            result.violations.add("begun " + result.begun + " requests but delivered " + result.delivered);
        }
        return result;
    }

    /** The leader of slots {@code id}, {@code id + 2}, ... and the owner of one request shard. */
    private final class Appender implements Runnable, ProduceCompletionHandler
    {
        final int id;
        final SplittableRandom random;
        final long[] leaderLeo = new long[SLOTS];
        final boolean[] busy = new boolean[SLOTS];
        final Map<Long, long[]> inFlight = new HashMap<>(); // cookie -> {slot, required, ...}, hwReachedAtMs
        final Map<Long, Long> hwReachedAtMs = new HashMap<>();
        final long[] lastHw = new long[SLOTS];
        volatile Thread thread;
        RequestShard shard;
        long nextCookie;

        Appender(final int id)
        {
            this.id = id;
            this.random = new SplittableRandom(seed * 31 + id);
        }

        @Override
        public void run()
        {
            shard = purgatory.newShard(64, 256, this, () -> LockSupport.unpark(thread), nowMs());
            while (producing.get() || !inFlight.isEmpty())
            {
                int work = shard.poll(nowMs());
                if (producing.get())
                {
                    work += maybeProduce();
                }
                checkLostWakeups();
                if (work == 0)
                {
                    if (shard.prepareToIdle())
                    {
                        LockSupport.parkNanos(200_000);
                    }
                    shard.onWake();
                }
            }
        }

        private int maybeProduce()
        {
            final int[] slots = new int[1 + random.nextInt(3)];
            int count = 0;
            for (int s = id; s < SLOTS && count < slots.length; s += 2)
            {
                if (!busy[s] && random.nextBoolean())
                {
                    slots[count++] = s;
                }
            }
            if (count == 0)
            {
                return 0;
            }
            final long cookie = ((long)id << 48) | nextCookie++;
            final int request = shard.begin(cookie, count, nowMs() + DEADLINE_MS);
            if (request == RequestShard.NO_REQUEST)
            {
                violation("shard refused a request with room to spare");
                return 0;
            }
            begun.incrementAndGet();
            final long[] waits = new long[count * 2];
            for (int i = 0; i < count; i++)
            {
                final int slot = slots[i];
                busy[slot] = true;
                // The append critical section: this appender is the slot's only leader.
                leaderLeo[slot] += 1 + random.nextInt(3);
                purgatory.onLocalLeo(slot, 0, leaderLeo[slot]);
                appendNoise(); // the window in which the HW can reach the new LEO before the wait is visible
                shard.watch(request, slot, leaderLeo[slot]);
                waits[2 * i] = slot;
                waits[2 * i + 1] = leaderLeo[slot];
            }
            inFlight.put(cookie, waits);
            return 1;
        }

        @Override
        public void onProduceComplete(final RequestShard shard, final int request, final long cookie)
        {
            if (deliveredCookies.put(cookie, Boolean.TRUE) != null)
            {
                violation("request " + cookie + " delivered twice");
            }
            final long[] waits = inFlight.remove(cookie);
            hwReachedAtMs.remove(cookie);
            if (waits == null)
            {
                violation("request " + cookie + " delivered but never begun by this owner");
                return;
            }
            delivered.incrementAndGet();
            int i = 0;
            for (int cell = shard.firstCell(request); cell != RequestShard.NO_CELL; cell = shard.nextCell(cell), i++)
            {
                final int slot = (int)waits[2 * i];
                final long required = waits[2 * i + 1];
                busy[slot] = false;
                final int outcome = shard.cellOutcome(cell);
                final long hw = table.highWatermark(slot);
                observeHw(slot, hw, lastHw, "appender-" + id);
                if (outcome == AckOutcome.SUCCESS)
                {
                    successes.incrementAndGet();
                    if (hw < required)
                    {
                        violation("wait for offset " + required + " of slot " + slot + " succeeded at HW " + hw);
                    }
                }
                else if (outcome == AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, MIRROR))
                {
                    remoteUnderMin.incrementAndGet();
                }
                else if (outcome != AckOutcome.of(MirrorError.NOT_ENOUGH_REPLICAS_AFTER_APPEND))
                {
                    violation("unexpected outcome " + AckOutcome.toString(outcome) + " for offset " + required +
                        " of slot " + slot + ": " + describe(slot));
                }
            }
            if (i != waits.length / 2)
            {
                violation("request " + cookie + " delivered " + i + " waits of " + waits.length / 2);
            }
        }

        private void checkLostWakeups()
        {
            final long now = nowMs();
            for (final Map.Entry<Long, long[]> entry : inFlight.entrySet())
            {
                final long[] waits = entry.getValue();
                boolean reached = true;
                for (int i = 0; i < waits.length && reached; i += 2)
                {
                    reached = table.highWatermark((int)waits[i]) >= waits[i + 1];
                }
                if (!reached)
                {
                    hwReachedAtMs.remove(entry.getKey());
                    continue;
                }
                final long since = hwReachedAtMs.computeIfAbsent(entry.getKey(), k -> now);
                if (now - since > LOST_WAKEUP_MS)
                {
                    violation("lost wake-up: request " + entry.getKey() + " pending " + (now - since) +
                        " ms after the HW reached every offset it waits for");
                    hwReachedAtMs.put(entry.getKey(), Long.MAX_VALUE / 2);
                }
            }
        }
    }

    private String describe(final int slot)
    {
        final long word = table.hwWord(slot);
        return "HW " + PartitionRowDescriptor.highWatermark(word) + " version " +
            PartitionRowDescriptor.membershipVersion(word) + ", local LEOs " + table.localLeo(slot, 0) + "/" +
            table.localLeo(slot, 1) + "/" + table.localLeo(slot, 2) + " ISR " +
            Integer.toBinaryString(PartitionRowDescriptor.isrMask(table.localIsrWord(slot))) + ", mirror LEOs " +
            table.mirrorLeo(slot, MIRROR, 0) + "/" + table.mirrorLeo(slot, MIRROR, 1) + "/" +
            table.mirrorLeo(slot, MIRROR, 2) + " ISR " +
            Integer.toBinaryString(PartitionRowDescriptor.isrMask(table.mirrorIsrWord(slot, MIRROR))) +
            " registered " + table.registeredMirrors(slot) + ", FIFO " + purgatory.rings().size(slot);
    }

    private void observeHw(final int slot, final long hw, final long[] lastSeen, final String who)
    {
        if (hw < lastSeen[slot])
        {
            violation("HW of slot " + slot + " decreased from " + lastSeen[slot] + " to " + hw + " (seen by " + who + ')');
        }
        lastSeen[slot] = Math.max(lastSeen[slot], hw);
    }

    /**
     * A local follower chasing the leader. Follower 1 reports each pass over the slots as one batch (one fence for
     * all, {@link DelayedProducePurgatory#onLeos}), as a fetch response's partitions are; follower 2 reports each
     * slot on its own. A lost store-load order between the two shows as a stuck HW (the monitor's lost advance).
     */
    private void follower(final int replica)
    {
        final SplittableRandom random = new SplittableRandom(seed * 17 + replica);
        final boolean batched = replica == 1;
        final long[] leo = new long[SLOTS];
        final long[] lastHw = new long[SLOTS];
        final int[] batchSlots = new int[SLOTS];
        final int[] batchCells = new int[SLOTS];
        final long[] batchLeos = new long[SLOTS];
        final long[] advanced = new long[SLOTS];
        while (running.get())
        {
            int count = 0;
            for (int slot = 0; slot < SLOTS; slot++)
            {
                final long leader = table.localLeo(slot, 0);
                if (leo[slot] < leader)
                {
                    leo[slot] = Math.min(leader, leo[slot] + 1 + random.nextInt(3));
                    if (batched)
                    {
                        batchSlots[count] = slot;
                        batchCells[count] = table.localLeoCell(replica);
                        batchLeos[count] = leo[slot];
                    }
                    else
                    {
                        final long hw = purgatory.onLocalLeo(slot, replica, leo[slot]);
                        if (hw != HighWatermarkGate.NO_ADVANCE)
                        {
                            observeHw(slot, hw, lastHw, "follower-" + replica);
                        }
                    }
                    count++;
                }
            }
            if (batched && count > 0)
            {
                purgatory.onLeos(batchSlots, batchCells, batchLeos, count, advanced);
                for (int i = 0; i < count; i++)
                {
                    if (advanced[i] != HighWatermarkGate.NO_ADVANCE)
                    {
                        observeHw(batchSlots[i], advanced[i], lastHw, "follower-" + replica);
                    }
                }
            }
            if (count == 0)
            {
                Thread.yield();
            }
        }
    }

    /** The mirror link: three destination replicas chasing the source LEO, and their reported ISR. */
    private void mirror()
    {
        final SplittableRandom random = new SplittableRandom(seed * 13);
        final long[][] leo = new long[SLOTS][3];
        final int[] isr = new int[SLOTS];
        java.util.Arrays.fill(isr, 0b111);
        while (running.get())
        {
            boolean moved = false;
            for (int slot = 0; slot < SLOTS; slot++)
            {
                final long source = table.localLeo(slot, 0);
                for (int r = 0; r < 3; r++)
                {
                    if (leo[slot][r] < source && random.nextInt(4) != 0)
                    {
                        leo[slot][r] = Math.min(source, leo[slot][r] + 1 + random.nextInt(3));
                        purgatory.onMirrorLeo(slot, MIRROR, r, leo[slot][r]);
                        moved = true;
                    }
                }
                final boolean churn = churning.get();
                if (isr[slot] != 0b111 && (!churn || random.nextInt(64) == 0))
                {
                    if (table.mirrorIsrIfCaughtUp(slot, MIRROR, 0b111, 2))
                    {
                        isr[slot] = 0b111;
                        membershipChanges.incrementAndGet();
                        purgatory.onMembershipChanged(slot);
                    }
                }
                else if (churn && isr[slot] == 0b111 && random.nextInt(512) == 0)
                {
                    isr[slot] = random.nextBoolean() ? 0b011 : 0b001; // a shrink; 0b001 is under MinISR 2
                    table.mirrorIsr(slot, MIRROR, isr[slot], 2);
                    membershipChanges.incrementAndGet();
                    purgatory.onMembershipChanged(slot);
                }
            }
            if (!moved)
            {
                Thread.yield();
            }
        }
    }

    /** The control plane: local ISR shrinks and guarded expansions, mirror unregistration and registration. */
    private void control()
    {
        final SplittableRandom random = new SplittableRandom(seed * 7);
        final int[] isr = new int[SLOTS];
        final boolean[] registered = new boolean[SLOTS];
        java.util.Arrays.fill(isr, 0b111);
        java.util.Arrays.fill(registered, true);
        while (running.get())
        {
            final boolean churn = churning.get();
            for (int slot = 0; slot < SLOTS; slot++)
            {
                boolean changed = false;
                if (isr[slot] != 0b111 && (!churn || random.nextInt(4) == 0))
                {
                    if (table.localIsrIfCaughtUp(slot, 0b111, 2))
                    {
                        isr[slot] = 0b111;
                        changed = true;
                    }
                }
                else if (churn && isr[slot] == 0b111 && random.nextInt(16) == 0)
                {
                    // only shrinks here: an unguarded expansion is exactly what the invariant forbids
                    isr[slot] = random.nextInt(8) == 0 ? 0b001 : (random.nextBoolean() ? 0b011 : 0b101);
                    table.localIsr(slot, isr[slot], 2);
                    changed = true;
                }
                if (!registered[slot] && (!churn || random.nextInt(4) == 0))
                {
                    registered[slot] = table.registeredMirrorsIfCaughtUp(slot, 1 << MIRROR);
                    changed |= registered[slot];
                }
                else if (churn && random.nextInt(32) == 0)
                {
                    table.registeredMirrors(slot, 0);
                    registered[slot] = false;
                    changed = true;
                }
                if (changed)
                {
                    membershipChanges.incrementAndGet();
                    purgatory.onMembershipChanged(slot);
                }
            }
            LockSupport.parkNanos(churn ? 200_000 : 1_000_000);
        }
    }

    /** Reads every slot's HW with the participating LEOs and checks the invariants that need no owner. */
    private void monitor()
    {
        final long[] lastHw = new long[SLOTS];
        // Per slot: the HW seen while the predicate allowed more, and since when (-1: nothing owed).
        final long[] owedAtHw = new long[SLOTS];
        final long[] owedSinceMs = new long[SLOTS];
        java.util.Arrays.fill(owedSinceMs, -1L);
        final PartitionRowDescriptor layout = table.layout();
        while (running.get())
        {
            for (int slot = 0; slot < SLOTS; slot++)
            {
                final long before = table.hwWord(slot);
                if (PartitionRowDescriptor.membershipChangeOpen(before))
                {
                    continue;
                }
                final long hw = PartitionRowDescriptor.highWatermark(before);
                observeHw(slot, hw, lastHw, "monitor");
                final int localIsr = PartitionRowDescriptor.isrMask(table.localIsrWord(slot));
                final int registered = table.registeredMirrors(slot);
                final int mirrorIsr = PartitionRowDescriptor.isrMask(table.mirrorIsrWord(slot, MIRROR));
                long minLeo = Long.MAX_VALUE;
                for (int r = 0; r < layout.localReplicas(); r++)
                {
                    if ((localIsr & (1 << r)) != 0)
                    {
                        minLeo = Math.min(minLeo, table.localLeo(slot, r));
                    }
                }
                if ((registered & (1 << MIRROR)) != 0)
                {
                    for (int r = 0; r < layout.replicasPerMirror(); r++)
                    {
                        if ((mirrorIsr & (1 << r)) != 0)
                        {
                            minLeo = Math.min(minLeo, table.mirrorLeo(slot, MIRROR, r));
                        }
                    }
                }
                if (table.membershipVersion(slot) != PartitionRowDescriptor.membershipVersion(before))
                {
                    continue;
                }
                invariantReads.incrementAndGet();
                checkLostAdvance(slot, hw, owedAtHw, owedSinceMs);
                if (minLeo < hw)
                {
                    violation("slot " + slot + ": HW " + hw + " above participating LEO " + minLeo +
                        " with the membership unchanged");
                }
            }
            Thread.yield();
        }
    }

    /**
     * A lost advance: the predicate allows a higher HW than the published one, and nothing publishes it for
     * {@link #LOST_WAKEUP_MS} (each slot goes quiet after its append, so no later report rescues it). Every LEO
     * writer recomputes after its store, so one of two writers completing the same offset must see the other's.
     */
    private void checkLostAdvance(final int slot, final long hw, final long[] owedAtHw, final long[] owedSinceMs)
    {
        final long candidate = gate.candidate(slot);
        if (candidate == HighWatermarkGate.FROZEN || candidate <= hw)
        {
            owedSinceMs[slot] = -1L;
            return;
        }
        final long now = nowMs();
        if (owedSinceMs[slot] < 0 || owedAtHw[slot] != hw)
        {
            owedAtHw[slot] = hw;
            owedSinceMs[slot] = now;
        }
        else if (now - owedSinceMs[slot] > LOST_WAKEUP_MS)
        {
            violation("lost advance: slot " + slot + " HW " + hw + " for " + (now - owedSinceMs[slot]) +
                " ms while its ISR allows " + candidate + ": " + describe(slot));
            owedSinceMs[slot] = Long.MAX_VALUE / 2;
        }
    }

    /** Runs one mutant (or none) and prints its result: {@code <mutant> <seed> <durationMs> <membershipChurn>}. */
    public static void main(final String[] args) throws InterruptedException
    {
        final Mutant mutant = Mutant.valueOf(args[0]);
        final Result result = new PurgatoryStressHarness(mutant, Long.parseLong(args[1]), Boolean.parseBoolean(args[3]))
            .run(Long.parseLong(args[2]), true);
        for (final String violation : result.violations)
        {
            System.out.println("VIOLATION " + violation);
        }
        System.out.println("RESULT " + result);
        System.out.flush();
        System.exit(0); // a mutant may have left threads spinning on a corrupted membership lock
    }
}
