package io.syncmirror.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import io.syncmirror.perf.data.BenchRun;
import io.syncmirror.perf.data.JmhResults;
import io.syncmirror.perf.gate.GateReport;
import io.syncmirror.perf.gate.GateResults;
import io.syncmirror.perf.report.HtmlPage;
import io.syncmirror.perf.report.RunSections;

/**
 * {@code bin/syncmirror-report.sh DIR... [--out FILE]}: one HTML report of results directories: sync bench runs
 * ({@code run.properties}), JMH runs ({@code jmh-result.json}), produce-latency harness runs ({@code *.hgrm}) and
 * regression gate runs ({@code rounds.csv}). Writes {@code report.html} in the first directory unless told
 * otherwise. Exit 0 written, 2 bad arguments or a directory it cannot read (the message says which and why).
 */
public final class ReportMain
{
    public static final int EXIT_USAGE = 2;

    private ReportMain()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            final Path out = run(args);
            System.out.println("report: " + out.toAbsolutePath().normalize());
        }
        catch (final IllegalArgumentException | IOException ex)
        {
            System.err.println("error: " + ex.getMessage());
            System.err.println("usage: bin/syncmirror-report.sh RESULTS_DIR... [--out FILE.html]");
            System.exit(EXIT_USAGE);
        }
    }

    /** Writes the report of the directories in {@code args} and returns its path. */
    public static Path run(final String[] args) throws IOException
    {
        final List<Path> dirs = new ArrayList<>();
        Path out = null;
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals("--out"))
            {
                if (i + 1 >= args.length)
                {
                    throw new IllegalArgumentException("--out needs a file");
                }
                out = Paths.get(args[++i]);
            }
            else if (args[i].startsWith("--"))
            {
                throw new IllegalArgumentException("unknown flag " + args[i]);
            }
            else
            {
                dirs.add(Paths.get(args[i]));
            }
        }
        if (dirs.isEmpty())
        {
            throw new IllegalArgumentException("no results directory given");
        }
        final HtmlPage page = new HtmlPage("syncmirror performance report");
        for (final Path dir : dirs)
        {
            add(page, dir);
        }
        if (out == null)
        {
            out = dirs.get(0).resolve("report.html");
        }
        Files.writeString(out, page.render(), StandardCharsets.UTF_8);
        return out;
    }

    /** Adds the sections of whatever {@code dir} holds; a directory holding nothing known is an error. */
    public static void add(final HtmlPage page, final Path dir) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            throw new IOException("no such directory: " + dir);
        }
        boolean known = false;
        if (GateResults.isOne(dir))
        {
            GateReport.sections(page, GateResults.read(dir));
            known = true;
        }
        if (BenchRun.isOne(dir))
        {
            RunSections.syncBench(page, BenchRun.read(dir));
            known = true;
        }
        final Path jmh = dir.resolve("jmh-result.json");
        if (Files.isRegularFile(jmh))
        {
            RunSections.jmh(page, JmhResults.read(jmh));
            known = true;
        }
        if (RunSections.isProduceLatency(dir))
        {
            RunSections.produceLatency(page, dir);
            known = true;
        }
        if (!known)
        {
            throw new IOException(dir + " holds no results this report knows: a sync bench run (run.properties), "
                + "a JMH run (jmh-result.json), a produce-latency run (*-ours-round1.hgrm) or a gate run (rounds.csv)");
        }
    }
}
