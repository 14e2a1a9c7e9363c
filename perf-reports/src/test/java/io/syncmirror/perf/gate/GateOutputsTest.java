package io.syncmirror.perf.gate;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GateOutputsTest
{
    private static GateDecision decision()
    {
        return new GateDecision(List.of(
            new Verdict("sync-bench.SYNC.p99_us", 5, 1.25, 1.12, 1.40, Verdict.Outcome.REGRESSED, 0, 0.001),
            new Verdict("sync-bench.SYNC.p50_us", 5, 1.15, 0.95, 1.38, Verdict.Outcome.INCONCLUSIVE, 14, 0.08),
            new Verdict("jmh.A.b[x=1,y=<2>]", 5, 0.98, 0.95, 1.01, Verdict.Outcome.PASS, 0, 0.9)),
            Verdict.Outcome.REGRESSED, List.of("1 of 10 candidate windows were saturated"));
    }

    @Test
    void shouldWriteJunitXmlThatParsesWithAFailurePerRegressionAndASkipPerInconclusiveMetric() throws Exception
    {
        final String xml = GateOutputs.junit(decision(), 4.5);
        final Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        assertEquals("3", doc.getDocumentElement().getAttribute("tests"));
        assertEquals("1", doc.getDocumentElement().getAttribute("failures"));
        assertEquals("1", doc.getDocumentElement().getAttribute("skipped"));
        assertEquals(1, doc.getElementsByTagName("failure").getLength());
        assertEquals("jmh.A.b[x=1,y=<2>]", doc.getElementsByTagName("testcase").item(2).getAttributes()
            .getNamedItem("name").getNodeValue());
    }

    @Test
    void shouldWriteAMarkdownTableWithEveryMetricAndTheNotes(@TempDir final Path dir)
    {
        final GateOptions options = GateOptions.parse(new String[] {"--baseline-dir", dir.toString(),
            "--candidate-dir", dir.toString(), "--out", dir.toString(), "--baseline-name", "main",
            "--candidate-name", "pr-42"});
        final String md = GateOutputs.markdown(options, decision(), 4.5, false);
        assertTrue(md.startsWith("## Latency regression gate: REGRESSION\n"), md);
        assertTrue(md.contains("| `sync-bench.SYNC.p99_us` | +25.0% | +12.0% .. +40.0% | 5 | REGRESSED |"), md);
        assertTrue(md.contains("INCONCLUSIVE (about 14 rounds would decide)"), md);
        assertTrue(md.contains("- 1 of 10 candidate windows were saturated"), md);
        assertTrue(GateOutputs.markdown(options, decision(), 4.5, true).contains("**The baseline is a stored run**"));
    }
}
