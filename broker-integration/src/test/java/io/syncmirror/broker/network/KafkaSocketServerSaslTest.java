package io.syncmirror.broker.network;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket server's SASL listeners with Kafka's own client on the other side: PLAIN and SCRAM-SHA-512 through
 * Kafka's SASL servers, the authenticated name as the principal, Kafka's errors for a wrong password, an
 * unknown mechanism, a request out of turn and a SASL request on a listener without SASL, and bounded memory for
 * what an unauthenticated peer sends.
 */
@Timeout(60)
class KafkaSocketServerSaslTest
{
    private static final long WAIT_S = 10;
    private static final String PLAIN_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
        + "user_alice=\"alice-secret\";";
    private static final int MAX_RECEIVE_BYTES = 64 * 1024;
    private static final short METADATA_VERSION = 12;

    private final FakeRequestHandler handler = new FakeRequestHandler()
        .serve(ApiKeys.METADATA, 0, ApiKeys.METADATA.latestVersion(false));
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private KafkaSocketServer server;
    private ScramCredentialStore scramCredentials;
    private int saslPort;
    private int plainPort;

    @AfterEach
    void closeAll() throws Exception
    {
        for (final AutoCloseable closeable : toClose)
        {
            closeable.close();
        }
        if (server != null)
        {
            server.close();
        }
    }

    private void startServer() throws Exception
    {
        final ScramCredential bob = new ScramFormatter(ScramMechanism.SCRAM_SHA_512).generateCredential("bob-secret",
            4096);
        final SaslServers sasl = SaslServers.create("SASL", List.of("PLAIN", "SCRAM-SHA-512"),
            Map.of("plain.sasl.jaas.config", new Password(PLAIN_JAAS)),
            scramCredentials = new ScramCredentialStore(Map.of("SCRAM-SHA-512", Map.of("bob", bob))),
            MAX_RECEIVE_BYTES);
        server = new KafkaSocketServer(List.of(
            new Listener("SASL", "127.0.0.1", 0, ListenerSecurity.create("SASL", SecurityProtocol.SASL_PLAINTEXT,
                Map.of(), sasl)),
            new Listener("PLAINTEXT", "127.0.0.1", 0)), handler, SocketServerConfig.defaults().withNetworkThreads(1));
        final var bound = server.start();
        saslPort = bound.get("SASL").getPort();
        plainPort = bound.get("PLAINTEXT").getPort();
        handler.brokers(List.of(new Node(1, "127.0.0.1", saslPort)));
    }

    private CompletableFuture<MetadataResponse> metadata(final String mechanism, final String jaas)
    {
        final Map<String, Object> security = new HashMap<>();
        security.put("security.protocol", "SASL_PLAINTEXT");
        security.put("sasl.mechanism", mechanism);
        security.put("sasl.jaas.config", jaas);
        final KafkaNodeClient client = KafkaNodeClient.start(new Node(1, "127.0.0.1", saslPort),
            NodeClientConfig.defaults("sasl-test").withRequestTimeoutMs(5_000), Time.SYSTEM, security);
        toClose.add(client);
        return client.send(new MetadataRequest.Builder(List.of(), false));
    }

    private static String plain(final String user, final String password)
    {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
            + "\" password=\"" + password + "\";";
    }

    private static String scram(final String user, final String password)
    {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
            + "\" password=\"" + password + "\";";
    }

    @Test
    @DisplayName("PLAIN and SCRAM-SHA-512 clients authenticate through Kafka's SASL servers, and every request "
        + "carries the authenticated user as its principal")
    void shouldAuthenticateWithPlainAndScramAndCarryThePrincipal() throws Exception
    {
        startServer();
        metadata("PLAIN", plain("alice", "alice-secret")).get(WAIT_S, TimeUnit.SECONDS);
        FakeRequestHandler.Received received = handler.nextReceived(0);
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"), received.context().principal());
        assertEquals(SecurityProtocol.SASL_PLAINTEXT, received.context().securityProtocol());

        metadata("SCRAM-SHA-512", scram("bob", "bob-secret")).get(WAIT_S, TimeUnit.SECONDS);
        received = handler.nextReceived(0);
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob"), received.context().principal());
    }

    @Test
    @DisplayName("SCRAM credentials applied to the store while the listener runs take effect for the next login: a "
        + "user added logs in, the file's user overridden logs in with the new password only, and a user deleted "
        + "is refused while the file's user falls back to the file's password")
    void shouldLogInWithCredentialsAppliedLive() throws Exception
    {
        startServer();
        final ScramFormatter formatter = new ScramFormatter(ScramMechanism.SCRAM_SHA_512);
        scramCredentials.apply(Map.of("SCRAM-SHA-512", Map.of(
            "carol", formatter.generateCredential("carol-secret", 4096),
            "bob", formatter.generateCredential("bob-new-secret", 4096))));
        metadata("SCRAM-SHA-512", scram("carol", "carol-secret")).get(WAIT_S, TimeUnit.SECONDS);
        metadata("SCRAM-SHA-512", scram("bob", "bob-new-secret")).get(WAIT_S, TimeUnit.SECONDS);
        final ExecutionException old = assertThrows(ExecutionException.class,
            () -> metadata("SCRAM-SHA-512", scram("bob", "bob-secret")).get(WAIT_S, TimeUnit.SECONDS));
        assertInstanceOf(SaslAuthenticationException.class, old.getCause(), String.valueOf(old.getCause()));

        scramCredentials.apply(Map.of());
        final ExecutionException deleted = assertThrows(ExecutionException.class,
            () -> metadata("SCRAM-SHA-512", scram("carol", "carol-secret")).get(WAIT_S, TimeUnit.SECONDS));
        assertInstanceOf(SaslAuthenticationException.class, deleted.getCause(), String.valueOf(deleted.getCause()));
        metadata("SCRAM-SHA-512", scram("bob", "bob-secret")).get(WAIT_S, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("a wrong password (PLAIN, SCRAM) and a user without credentials fail with Kafka's "
        + "SaslAuthenticationException; nothing reaches the handler and the listener serves the next client")
    void shouldRefuseWrongCredentialsWithKafkasError() throws Exception
    {
        startServer();
        for (final CompletableFuture<MetadataResponse> refused : List.of(
            metadata("PLAIN", plain("alice", "wrong")), metadata("SCRAM-SHA-512", scram("bob", "wrong")),
            metadata("SCRAM-SHA-512", scram("mallory", "anything"))))
        {
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> refused.get(WAIT_S, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, e.getCause(), String.valueOf(e.getCause()));
        }
        assertNull(handler.nextReceived(0));
        assertEquals(3, server.failedAuthentications());
        assertEquals(3, server.authentications().failedTotal("SASL"), "Kafka's failed-authentication-total");
        assertEquals(0, server.authentications().successfulTotal("SASL"));
        metadata("PLAIN", plain("alice", "alice-secret")).get(WAIT_S, TimeUnit.SECONDS);
        assertEquals(1, server.authentications().successfulTotal("SASL"), "Kafka's successful-authentication-total");
        assertEquals(0, server.authentications().failedTotal("PLAINTEXT"));
    }

    @Test
    @DisplayName("the mirror RPC client logs in with PLAIN and with SCRAM-SHA-512 from Kafka client settings and is "
        + "served; a wrong password is refused with the broker's SASL_AUTHENTICATION_FAILED")
    void shouldLogTheMirrorRpcClientInWithSasl() throws Exception
    {
        startServer();
        for (final Map.Entry<String, String> login : Map.of("PLAIN", plain("alice", "alice-secret"),
            "SCRAM-SHA-512", scram("bob", "bob-secret")).entrySet())
        {
            try (MirrorWireClient client = MirrorWireClient.connect("127.0.0.1", saslPort, "sasl-test", 5_000, 5_000,
                WireSecurity.forClientConfigs(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism",
                    login.getKey(), "sasl.jaas.config", login.getValue()))))
            {
                assertTrue(client.apiVersions().apiKeys().size() > 0, login.getKey() + ": served once logged in");
            }
        }
        final IOException refused = assertThrows(IOException.class, () -> MirrorWireClient.connect("127.0.0.1",
            saslPort, "sasl-test", 5_000, 5_000, WireSecurity.forClientConfigs(Map.of("security.protocol",
                "SASL_PLAINTEXT", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config", scram("bob", "wrong")))));
        assertTrue(refused.getMessage().contains("SASL_AUTHENTICATION_FAILED"), refused.getMessage());
    }

    @Test
    @DisplayName("a mechanism not enabled is UNSUPPORTED_SASL_MECHANISM with the enabled list, a request before the "
        + "exchange closes the connection, and SaslHandshake on a listener without SASL is ILLEGAL_SASL_STATE")
    void shouldAnswerOutOfTurnAndUnknownMechanismsWithKafkasErrors() throws Exception
    {
        startServer();
        try (RawKafkaClient raw = new RawKafkaClient(saslPort, 5_000))
        {
            raw.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("GSSAPI"))
                .build((short)1), 1);
            final SaslHandshakeResponse response = (SaslHandshakeResponse)raw.receive(ApiKeys.SASL_HANDSHAKE,
                (short)1).body();
            assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, response.error());
            assertEquals(List.of("PLAIN", "SCRAM-SHA-512"), response.data().mechanisms());
            assertClosed(raw);
        }
        try (RawKafkaClient raw = new RawKafkaClient(saslPort, 5_000))
        {
            raw.send(new MetadataRequest.Builder(List.of(), false).build(METADATA_VERSION), 1);
            assertClosed(raw);
        }
        assertNull(handler.nextReceived(0), "the Metadata request before authentication never reached the handler");
        try (RawKafkaClient raw = new RawKafkaClient(plainPort, 5_000))
        {
            raw.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN"))
                .build((short)1), 1);
            assertEquals(Errors.ILLEGAL_SASL_STATE, ((SaslHandshakeResponse)raw.receive(ApiKeys.SASL_HANDSHAKE,
                (short)1).body()).error());
            raw.send(new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData()
                .setAuthBytes(new byte[] {0})).build((short)2), 2);
            assertEquals(Errors.ILLEGAL_SASL_STATE, ((SaslAuthenticateResponse)raw.receive(
                ApiKeys.SASL_AUTHENTICATE, (short)2).body()).error());
            raw.send(new MetadataRequest.Builder(List.of(), false).build(METADATA_VERSION), 3);
            raw.receive(ApiKeys.METADATA, METADATA_VERSION);
        }
    }

    @Test
    @DisplayName("before authentication a frame over sasl.server.max.receive.size closes the connection before it "
        + "is buffered, and an exchange cut off halfway costs nothing; the listener serves the next client")
    void shouldBoundWhatAnUnauthenticatedPeerSends() throws Exception
    {
        startServer();
        try (RawKafkaClient raw = new RawKafkaClient(saslPort, 5_000))
        {
            raw.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN"))
                .build((short)1), 1);
            assertEquals(Errors.NONE, ((SaslHandshakeResponse)raw.receive(ApiKeys.SASL_HANDSHAKE, (short)1).body())
                .error());
            // A SaslAuthenticate announced at 100 MB: refused on its size prefix alone.
            raw.sendRaw(ByteBuffer.allocate(4).putInt(100 * 1024 * 1024).array());
            assertClosed(raw);
        }
        try (RawKafkaClient raw = new RawKafkaClient(saslPort, 5_000))
        {
            raw.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-512"))
                .build((short)1), 1);
            raw.receive(ApiKeys.SASL_HANDSHAKE, (short)1);
            // Half a frame, then gone.
            raw.sendRaw(new byte[] {0, 0, 1, 0, 1, 2, 3});
        }
        metadata("PLAIN", plain("alice", "alice-secret")).get(WAIT_S, TimeUnit.SECONDS);
    }

    private static void assertClosed(final RawKafkaClient raw)
    {
        final IOException e = assertThrows(IOException.class, () -> raw.receive(ApiKeys.METADATA, (short)12));
        assertTrue(e instanceof EOFException || e instanceof SocketException, e.toString());
    }
}
