package io.syncmirror.perf.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * JMH's JSON result file ({@code -rf json}; {@code jmh-result.json} of {@code benchmarks/run-micro.sh}), read with
 * Jackson. Immutable once read.
 */
public record JmhResults(Path file, List<Benchmark> benchmarks)
{
    /**
     * One benchmark method at one parameter combination.
     *
     * @param benchmark   JMH's full name, {@code package.Class.method}
     * @param params      the {@code @Param} values, sorted by name
     * @param score       the primary metric's score
     * @param scoreError  JMH's half-width of its 99.9 % confidence interval (NaN with one iteration)
     * @param forkScores  each fork's mean over its measurement iterations
     * @param allocBytes  {@code gc.alloc.rate.norm} when the GC profiler ran, else NaN
     */
    public record Benchmark(String benchmark, String mode, Map<String, String> params, double score,
        double scoreError, String unit, List<Double> forkScores, double allocBytes)
    {
        /** {@code Class.method}, without the package. */
        public String shortName()
        {
            final int method = benchmark.lastIndexOf('.');
            final int klass = method <= 0 ? -1 : benchmark.lastIndexOf('.', method - 1);
            return benchmark.substring(klass + 1);
        }

        /** The class's simple name. */
        public String className()
        {
            final String name = shortName();
            final int dot = name.indexOf('.');
            return dot < 0 ? name : name.substring(0, dot);
        }

        /** The method's name. */
        public String method()
        {
            return benchmark.substring(benchmark.lastIndexOf('.') + 1);
        }

        /** {@code Class.method[k=v,...]}: a name that tells parameter combinations apart. */
        public String key()
        {
            return shortName() + (params.isEmpty() ? "" : params.toString().replace(", ", ",").replace('{', '[')
                .replace('}', ']'));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads {@code file}; a missing file or JSON that is not JMH's result list is an {@link IOException}. */
    public static JmhResults read(final Path file) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw new IOException("no JMH result file " + file);
        }
        final JsonNode root;
        try
        {
            root = JSON.readTree(file.toFile());
        }
        catch (final JacksonException ex)
        {
            throw new IOException(file + " is not JSON: " + ex.getOriginalMessage(), ex);
        }
        if (root == null || !root.isArray())
        {
            throw new IOException(file + " is not a JMH result list (a JSON array of benchmarks)");
        }
        final List<Benchmark> benchmarks = new ArrayList<>();
        for (final JsonNode node : root)
        {
            benchmarks.add(benchmark(file, node));
        }
        return new JmhResults(file, List.copyOf(benchmarks));
    }

    private static Benchmark benchmark(final Path file, final JsonNode node) throws IOException
    {
        final JsonNode primary = node.get("primaryMetric");
        if (!node.hasNonNull("benchmark") || primary == null || !primary.hasNonNull("score"))
        {
            throw new IOException(file + " has an entry without benchmark or primaryMetric.score: not JMH's JSON");
        }
        final Map<String, String> params = new TreeMap<>();
        final JsonNode paramsNode = node.get("params");
        if (paramsNode != null)
        {
            for (final Map.Entry<String, JsonNode> entry : paramsNode.properties())
            {
                params.put(entry.getKey(), entry.getValue().asText());
            }
        }
        final List<Double> forkScores = new ArrayList<>();
        final JsonNode raw = primary.get("rawData");
        if (raw != null)
        {
            for (final JsonNode fork : raw)
            {
                double sum = 0;
                int count = 0;
                for (final JsonNode iteration : fork)
                {
                    sum += iteration.asDouble();
                    count++;
                }
                if (count > 0)
                {
                    forkScores.add(sum / count);
                }
            }
        }
        double alloc = Double.NaN;
        final JsonNode secondary = node.get("secondaryMetrics");
        if (secondary != null && secondary.has("gc.alloc.rate.norm"))
        {
            alloc = secondary.get("gc.alloc.rate.norm").path("score").asDouble(Double.NaN);
        }
        return new Benchmark(node.get("benchmark").asText(), node.path("mode").asText(""), params,
            primary.get("score").asDouble(), number(primary.get("scoreError")), primary.path("scoreUnit").asText(""),
            List.copyOf(forkScores), alloc);
    }

    /** JMH writes "NaN" as a string when one iteration leaves no error estimate. */
    private static double number(final JsonNode node)
    {
        if (node == null || node.isNull())
        {
            return Double.NaN;
        }
        return node.isNumber() ? node.asDouble() : Double.parseDouble(node.asText("NaN"));
    }
}
