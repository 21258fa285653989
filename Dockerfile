# syntax=docker/dockerfile:1

# Build: release, with the Swift runtime and Foundation linked in statically, so the
# binary needs nothing but glibc, libstdc++ and libgcc_s.
FROM swift:6.3-bookworm AS build
WORKDIR /src
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# Only what the binary is built from, each in its own layer, so an edit to a test, a
# doc or a script reuses the build. SwiftPM reads every target the manifest names:
# the two small test-support targets come along, the test targets are empty folders.
COPY Package.swift openapi.yaml ./
COPY Tests/PropertyChecking Tests/PropertyChecking
COPY Tests/HTTPTestSupport Tests/HTTPTestSupport
RUN mkdir -p Tests/DeviceOracleRulesTests Tests/DeviceOracleJSONTests Tests/DeviceOracleWireTests \
             Tests/DeviceOracleHTTPTests Tests/DeviceOracleTests Tests/DeviceOracleRecorderTests Tests/EndToEndTests
COPY Sources Sources
# The runtime root: the binary and exactly the libraries ldd says it loads.
RUN swift build -c release --static-swift-stdlib --product device-oracle \
    && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/device-oracle" \
    && install -D "$bin" /rootfs/usr/local/bin/device-oracle \
    && ldd "$bin" | grep -o '/[^ ]*' | xargs -I{} cp --parents -L {} /rootfs/

# Run: nothing but that root, as a non-root user. PID 1 gets no default signal
# handling; the server installs its own SIGTERM/SIGINT handlers, so `docker stop`
# drains in-flight requests.
FROM scratch
COPY --from=build /rootfs /
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 CMD ["/usr/local/bin/device-oracle", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/device-oracle"]
