package io.syncmirror.bench.e2e;

import org.junit.jupiter.api.Test;

import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SyncBenchServerTest
{
    @Test
    void shouldParseAWindowWithItsDefaultOrGivenLength()
    {
        assertEquals(new SyncBenchServer.Command(false, MirrorType.ASYNC, "ASYNC-r1", 7, null),
            SyncBenchServer.parse("measure ASYNC ASYNC-r1", 7));
        assertEquals(new SyncBenchServer.Command(false, MirrorType.SYNC, "warm", 20, null),
            SyncBenchServer.parse("  measure sync warm 20 ", 7));
        assertTrue(SyncBenchServer.parse("promote", 7).promote());
    }

    @Test
    void shouldAnswerEveryBadCommandWithOneErrorLine()
    {
        assertEquals("ERROR unknown command: bogus (measure ASYNC|SYNC LABEL [SECONDS], promote, quit)",
            SyncBenchServer.parse("bogus", 7).error());
        assertEquals("ERROR unknown command: measure ASYNC (measure ASYNC|SYNC LABEL [SECONDS], promote, quit)",
            SyncBenchServer.parse("measure ASYNC", 7).error());
        assertEquals("ERROR unknown command: promote now (measure ASYNC|SYNC LABEL [SECONDS], promote, quit)",
            SyncBenchServer.parse("promote now", 7).error());
        assertEquals("ERROR measure: no mode 'FAST' (ASYNC or SYNC)", SyncBenchServer.parse("measure FAST x", 7)
            .error());
        assertEquals("ERROR measure: a label is 1-64 letters, digits, '_', '.' or '-': 'a/b'",
            SyncBenchServer.parse("measure ASYNC a/b", 7).error());
        assertEquals("ERROR measure: a window lasts 1..3600 seconds: '0'", SyncBenchServer.parse("measure ASYNC a 0",
            7).error());
        assertEquals("ERROR measure: a window lasts 1..3600 seconds: 'ten'", SyncBenchServer.parse(
            "measure ASYNC a ten", 7).error());
    }

    @Test
    void shouldRefuseAWindowOfTheModeMirroringIsNotIn()
    {
        assertNull(SyncBenchServer.refusal(MirrorType.ASYNC, MirrorType.ASYNC));
        assertEquals("ERROR measure: mirroring is ASYNC, not SYNC (promote first)",
            SyncBenchServer.refusal(MirrorType.ASYNC, MirrorType.SYNC));
        assertEquals("ERROR measure: mirroring is SYNC, not ASYNC (a promotion is not undone)",
            SyncBenchServer.refusal(MirrorType.SYNC, MirrorType.ASYNC));
    }
}
