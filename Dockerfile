# syntax=docker/dockerfile:1

# Build: release, with the Swift runtime and Foundation linked in statically, so
# the runtime image needs nothing but glibc and libstdc++.
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY . .
RUN swift build -c release --static-swift-stdlib --product device-oracle \
    && install -D "$(swift build -c release --static-swift-stdlib --show-bin-path)/device-oracle" /out/device-oracle

# Run: a slim base of the same Debian release as the build image (same glibc),
# as a non-root user. PID 1 gets no default signal handling; the server installs
# its own SIGTERM/SIGINT handlers, so `docker stop` drains in-flight requests.
FROM debian:bookworm-slim
COPY --from=build /out/device-oracle /usr/local/bin/device-oracle
USER 10001:10001
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 CMD ["device-oracle", "healthcheck"]
ENTRYPOINT ["device-oracle"]
