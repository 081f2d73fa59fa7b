# The operator image: docker build -t egress-proxies-operator:dev .
# DockerfileTest checks what can be checked without a container engine (COPY sources, the jar
# name, the user).

# Build: the same Maven build as CI, without the tests (they need Squid, kubectl and more; CI
# runs them). Dependencies are fetched in a layer of their own so that a source change does not
# download them again.
FROM maven:3.9-eclipse-temurin-25 AS build
WORKDIR /src
COPY pom.xml .
RUN mvn -B -ntp -q dependency:go-offline
COPY crd crd
COPY src/main src/main
RUN mvn -B -ntp -q package -DskipTests

# Run: a JRE, libvirt's client library for the kvm provider (libvirt-java loads it through JNA),
# and the shaded jar, as an unprivileged numeric user so that runAsNonRoot can verify it.
FROM eclipse-temurin:25-jre
RUN apt-get update \
    && apt-get install -y --no-install-recommends libvirt0 \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/egress-proxies-operator.jar /opt/egress-proxies/egress-proxies-operator.jar
USER 10001:10001
EXPOSE 8080 8081 8090
ENTRYPOINT ["java", "-jar", "/opt/egress-proxies/egress-proxies-operator.jar"]
