package io.syncmirror.bench.e2e;

import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadCpuTest
{
    @Test
    void shouldNameAKindOfThreadWithoutItsNumbers()
    {
        assertEquals("broker-#-mirror-coordinator", ThreadCpu.kindOf("broker-4-mirror-coordinator"));
        assertEquals("kafka-producer-network-thread | sync-bench-#",
            ThreadCpu.kindOf("kafka-producer-network-thread | sync-bench-17"));
        assertEquals("main", ThreadCpu.kindOf("main"));
    }

    @Test
    void shouldChargeABusyKindOfThreadWithItsCpuAndIdleOnesWithLittle() throws Exception
    {
        final ThreadCpu cpu = ThreadCpu.start();
        assertNotNull(cpu, "this JVM measures thread CPU");
        final CountDownLatch done = new CountDownLatch(1);
        final Thread idle = new Thread(() ->
        {
            try
            {
                done.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }, "thread-cpu-test-idle-1");
        final Thread busy = new Thread(() ->
        {
            final long endNs = System.nanoTime() + 400_000_000L;
            long spins = 0;
            while (System.nanoTime() < endNs)
            {
                spins++;
            }
            assertTrue(spins > 0);
            try
            {
                done.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }, "thread-cpu-test-busy-1");
        idle.start();
        busy.start();
        Thread.sleep(600);
        final List<ThreadCpu.Kind> kinds = cpu.finish();
        done.countDown();
        busy.join();
        idle.join();
        final ThreadCpu.Kind busyKind = kinds.stream().filter(k -> k.name().equals("thread-cpu-test-busy-#"))
            .findFirst().orElseThrow();
        final ThreadCpu.Kind idleKind = kinds.stream().filter(k -> k.name().equals("thread-cpu-test-idle-#"))
            .findFirst().orElseThrow();
        // Spinning 400 ms costs at least 100 ms of CPU however busy the machine is; parking costs almost none.
        assertTrue(busyKind.cpuNs() > 100_000_000L, "busy " + busyKind);
        assertTrue(idleKind.cpuNs() < 50_000_000L, "idle " + idleKind);
        assertTrue(kinds.indexOf(busyKind) < kinds.indexOf(idleKind), "most first: " + kinds);
        assertTrue(ThreadCpu.describe(kinds, 20, 0.6).contains("thread-cpu-test-busy-# (1) "),
            ThreadCpu.describe(kinds, 20, 0.6));
    }
}
