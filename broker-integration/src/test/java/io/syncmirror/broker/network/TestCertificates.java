package io.syncmirror.broker.network;

import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates for TLS tests, made in-process: a CA, and stores (PKCS12 files) holding a key and a certificate it
 * signed, or its certificate as the trusted one. A server certificate names 127.0.0.1 and localhost, so Kafka's
 * default hostname verification ({@code ssl.endpoint.identification.algorithm=https}) passes on loopback. Not
 * thread-safe; each test makes its own.
 */
public final class TestCertificates
{
    public static final String PASSWORD = "test-store-password";
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());
    private static final long DAY_MS = 24L * 3600 * 1000;

    private final Path dir;
    private final String caName;
    private final KeyPair caKeys;
    private final X509Certificate caCertificate;

    /** A CA named {@code CN=<caName>} writing its stores under {@code dir}. */
    public TestCertificates(final Path dir, final String caName) throws Exception
    {
        this.dir = dir;
        this.caName = caName;
        this.caKeys = keyPair();
        final X500Name subject = new X500Name("CN=" + caName);
        final JcaX509v3CertificateBuilder builder = builder(subject, subject, caKeys);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        this.caCertificate = sign(builder, caKeys.getPrivate());
    }

    /** A keystore with a key and a certificate for {@code CN=<commonName>} that names 127.0.0.1 and localhost. */
    public Path keystore(final String commonName) throws Exception
    {
        final KeyPair keys = keyPair();
        final JcaX509v3CertificateBuilder builder = builder(new X500Name("CN=" + caName), new X500Name("CN=" +
            commonName), keys);
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
        final X509Certificate certificate = sign(builder, caKeys.getPrivate());
        final KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry(commonName, keys.getPrivate(), PASSWORD.toCharArray(),
            new Certificate[] {certificate, caCertificate});
        return write(store, caName + "-" + commonName + ".keystore.p12");
    }

    /** A truststore trusting this CA. */
    public Path truststore() throws Exception
    {
        final KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry(caName, caCertificate);
        return write(store, caName + ".truststore.p12");
    }

    /** Kafka's {@code ssl.*} settings for a node or client with {@code keystore} (null for none) trusting this CA. */
    public Map<String, String> sslConfigs(final Path keystore) throws Exception
    {
        final Map<String, String> configs = new HashMap<>();
        if (keystore != null)
        {
            configs.put("ssl.keystore.location", keystore.toString());
            configs.put("ssl.keystore.password", PASSWORD);
            configs.put("ssl.key.password", PASSWORD);
            configs.put("ssl.keystore.type", "PKCS12");
        }
        configs.put("ssl.truststore.location", truststore().toString());
        configs.put("ssl.truststore.password", PASSWORD);
        configs.put("ssl.truststore.type", "PKCS12");
        return configs;
    }

    private Path write(final KeyStore store, final String name) throws Exception
    {
        final Path file = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(file))
        {
            store.store(out, PASSWORD.toCharArray());
        }
        return file;
    }

    private static KeyPair keyPair() throws Exception
    {
        final KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static JcaX509v3CertificateBuilder builder(final X500Name issuer, final X500Name subject,
        final KeyPair keys)
    {
        final long now = System.currentTimeMillis();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
            new Date(now - DAY_MS), new Date(now + 30 * DAY_MS), subject, keys.getPublic());
    }

    private static X509Certificate sign(final JcaX509v3CertificateBuilder builder, final PrivateKey key)
        throws Exception
    {
        return new JcaX509CertificateConverter().getCertificate(
            builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    }
}
