package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * TLS for a benchmark round: a self-signed certificate for 127.0.0.1 made with the JDK's own {@code keytool}
 * (no dependency), a PKCS12 keystore holding it and a truststore trusting it, and the Kafka settings that use
 * them, the same for the reference broker and for Kafka. Immutable once made; the files live until the JVM exits.
 *
 * <p>Both sides get the same settings: the broker listener and inter-broker links in TLS (the listener named
 * PLAINTEXT is mapped to SSL, so each cluster keeps its listener layout), the controllers' links in plaintext
 * (they carry no records), no client authentication, Kafka's default protocols and cipher suites. So the
 * difference a round measures is what TLS costs each broker on the data path.
 */
public final class TlsSetup
{
    private static final String PASSWORD = "bench-store-password";

    private final Path keystore;
    private final Path truststore;

    private TlsSetup(final Path keystore, final Path truststore)
    {
        this.keystore = keystore;
        this.truststore = truststore;
    }

    /** Makes the certificate and the stores in a fresh temporary directory. */
    public static TlsSetup create() throws IOException, InterruptedException
    {
        final Path dir = Files.createTempDirectory("syncmirror-bench-tls-");
        dir.toFile().deleteOnExit();
        final Path keystore = dir.resolve("broker.p12");
        final Path certificate = dir.resolve("broker.crt");
        final Path truststore = dir.resolve("trust.p12");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
            "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "30", "-storetype", "PKCS12",
            "-keystore", keystore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-alias", "broker", "-keystore", keystore.toString(), "-storepass", PASSWORD,
            "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(), "-storetype",
            "PKCS12", "-keystore", truststore.toString(), "-storepass", PASSWORD);
        for (final Path file : List.of(keystore, certificate, truststore))
        {
            file.toFile().deleteOnExit();
        }
        return new TlsSetup(keystore, truststore);
    }

    /** Broker settings for either system: the PLAINTEXT-named listener served in TLS, inter-broker links too. */
    public Map<String, String> brokerOverrides()
    {
        final Map<String, String> overrides = new HashMap<>(stores());
        overrides.put("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:PLAINTEXT");
        return overrides;
    }

    /** Kafka client settings for the benchmark's producer and admin clients. */
    public Map<String, Object> clientConfigs()
    {
        final Map<String, Object> configs = new HashMap<>(stores());
        configs.put("security.protocol", "SSL");
        return configs;
    }

    private Map<String, String> stores()
    {
        final Map<String, String> stores = new HashMap<>();
        stores.put("ssl.keystore.type", "PKCS12");
        stores.put("ssl.keystore.location", keystore.toString());
        stores.put("ssl.keystore.password", PASSWORD);
        stores.put("ssl.key.password", PASSWORD);
        stores.put("ssl.truststore.type", "PKCS12");
        stores.put("ssl.truststore.location", truststore.toString());
        stores.put("ssl.truststore.password", PASSWORD);
        return stores;
    }

    private static void keytool(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            process.destroyForcibly();
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }
}
