package io.syncmirror.broker.mirror.sync;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.SyncCommitFence;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sync control with links whose answers the test gives when it chooses: requests answered later. */
class SyncControlTest
{
    private static final String MIRROR = "m";
    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAMQ");

    /** One partition led here; the test sets what the coordinator would. */
    static final class Part implements SyncPartition
    {
        final int index;
        boolean mirroring = true;
        long lag;
        boolean reporting;
        long failingSince = -1L;
        short failure;
        byte desired = MirrorType.ASYNC.id();
        int attempts;
        String error;
        boolean owed;

        Part(final int index)
        {
            this.index = index;
        }

        @Override
        public int index()
        {
            return index;
        }

        @Override
        public boolean mirroring()
        {
            return mirroring;
        }

        @Override
        public long lag()
        {
            return lag;
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
            return desired;
        }

        @Override
        public int registerAttempts()
        {
            return attempts;
        }

        @Override
        public boolean registrationOwed()
        {
            return owed;
        }

        @Override
        public int leaderEpoch()
        {
            return 0;
        }
    }

    /** Requests as strings, and their answers, completed by the test. */
    static final class HeldLinks implements SyncLinks
    {
        final List<String> sent = new ArrayList<>();
        /** The number of each Unregister sent, in order. */
        final List<Long> unregisterNumbers = new ArrayList<>();
        final List<CompletableFuture<?>> pending = new ArrayList<>();
        final Map<Uuid, Map<Integer, RemotePartition>> remote = new HashMap<>();

        private <T> CompletableFuture<T> held(final String request)
        {
            sent.add(request);
            final CompletableFuture<T> answer = new CompletableFuture<>();
            pending.add(answer);
            return answer;
        }

        @Override
        public CompletableFuture<Answer> register(final String mirrorName, final Uuid topicId, final String topicName,
            final boolean recoveryPromotion, final long driverEpoch)
        {
            return held("register " + topicName + (recoveryPromotion ? " recovery" : ""));
        }

        @Override
        public CompletableFuture<Answer> unregister(final String mirrorName, final Uuid topicId,
            final String topicName, final long driverEpoch)
        {
            unregisterNumbers.add(driverEpoch);
            return held("unregister " + topicName);
        }

        @Override
        public CompletableFuture<Void> commitMirrorType(final Uuid topicId, final byte mirrorType,
            final long driverEpoch)
        {
            return held("commit " + MirrorType.fromId(mirrorType));
        }

        @Override
        public CompletableFuture<Map<Uuid, Map<Integer, RemotePartition>>> remotePartitions(final String mirrorName)
        {
            return CompletableFuture.completedFuture(remote);
        }

        @SuppressWarnings("unchecked")
        <T> void answer(final int request, final T value)
        {
            ((CompletableFuture<T>)pending.get(request)).complete(value);
        }
    }

    private final Part p0 = new Part(0);
    private final Part p1 = new Part(1);
    private final HeldLinks links = new HeldLinks();
    private int wakeups;
    private final SyncControl control = new SyncControl(new SyncHost()
    {
        @Override
        public void reporting(final SyncPartition partition, final boolean reporting)
        {
            ((Part)partition).reporting = reporting;
        }

        @Override
        public void registerAttempts(final SyncPartition driver, final int attempts)
        {
            ((Part)driver).attempts = attempts;
        }

        @Override
        public CompletableFuture<Void> registrationOwed(final SyncPartition driver, final boolean owed)
        {
            ((Part)driver).owed = owed;
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void promotionError(final SyncPartition driver, final String message)
        {
            ((Part)driver).error = message;
        }

        @Override
        public void wakeup()
        {
            wakeups++;
        }
    }, links, 100, 1_000);
    private long nowMs = 1_000;
    private boolean effectiveSync;

    private void step()
    {
        control.beginTick(Set.of(TOPIC_ID));
        control.step(MIRROR, TOPIC_ID, TOPIC, 2, effectiveSync, List.of(p0, p1), nowMs);
    }

    @Test
    @DisplayName("SU-01 a promotion waits for each answer: no second Register while the first is out, the commit "
        + "only once the source admitted it, reports on from the Register on")
    void shouldWaitForEachAnswerOfAPromotion()
    {
        p0.desired = MirrorType.SYNC.id();
        step();
        assertEquals(List.of("register orders"), links.sent);
        assertTrue(p0.reporting && p1.reporting, "reporting before the source starts gating");
        for (int i = 0; i < 5; i++)
        {
            nowMs += 1_000;
            step();
        }
        assertEquals(List.of("register orders"), links.sent, "nothing else while the Register is out");

        links.answer(0, new SyncLinks.Answer(Errors.NONE.code(), null));
        assertEquals(1, wakeups, "the answer asks for a step");
        step();
        assertEquals(List.of("register orders", "commit SYNC"), links.sent);
        step();
        assertEquals(2, links.sent.size(), "the commit is awaited too");
        links.answer(1, null);
        step();
        assertTrue(p0.reporting && p1.reporting);
        effectiveSync = true; // the image shows the commit
        step();
        assertEquals(2, links.sent.size(), "promoted: nothing more");
    }

    @Test
    @DisplayName("SU-01 a Register whose answer never comes (the link failed) may have been admitted: it is undone "
        + "by a numbered ASYNC commit and then an Unregister, after which the reports stop and the next Register "
        + "waits for its backoff")
    void shouldUnregisterAfterARegisterWithoutAnswer()
    {
        p0.desired = MirrorType.SYNC.id();
        step();
        ((CompletableFuture<?>)links.pending.get(0)).completeExceptionally(new java.io.IOException("reset"));
        step();
        assertEquals(1, p0.attempts);
        assertTrue(p0.error.contains("reset"), p0.error);
        assertTrue(p0.reporting, "the source may gate on it: reports go on until the Unregister is acknowledged");
        step();
        assertEquals(List.of("register orders", "commit ASYNC"), links.sent);
        links.answer(1, null);
        step();
        assertEquals(List.of("register orders", "commit ASYNC", "unregister orders"), links.sent);
        links.answer(2, new SyncLinks.Answer(Errors.NONE.code(), null));
        step();
        assertFalse(p0.reporting || p1.reporting);
        nowMs += 99;
        step();
        assertEquals(3, links.sent.size(), "the next Register waits for the backoff");
        nowMs += 1;
        step();
        assertEquals("register orders", links.sent.get(3));
    }

    @Test
    @DisplayName("SU-06 a failover forgets the request still out, unregisters once, and clears the recovery hint")
    void shouldUnregisterOnceOnStopAndForgetTheRequestOut()
    {
        p0.desired = MirrorType.SYNC.id();
        step();
        final long closing = SyncCommitFence.closing(0);
        final CompletableFuture<Boolean> acknowledged = control.unregisterOnStop(MIRROR, TOPIC_ID, TOPIC, closing);
        assertEquals(List.of("register orders", "unregister orders"), links.sent, "a failover's Unregister is sent "
            + "at once");
        assertEquals(List.of(closing), links.unregisterNumbers, "numbered as the failover gave it");
        links.answer(0, new SyncLinks.Answer(Errors.NONE.code(), null));
        links.answer(1, new SyncLinks.Answer(Errors.NONE.code(), null));
        assertTrue(acknowledged.join());
        assertTrue(control.unregisterOnStop(MIRROR, TOPIC_ID, TOPIC, closing).join(), "once per topic");
        assertEquals(2, links.sent.size());
        assertFalse(control.recoveryPending(TOPIC_ID));
    }
}
