# syntax=docker/dockerfile:1
# The linkpatrol container image. Build stage: the official Rust image compiles the binary with
# the `dist` profile (the command of .github/workflows/release.yml). Run stage: distroless
# (glibc, no shell, no package manager) as the non-root user, with the checked folder at /site:
#   docker run --rm -v "$PWD:/site:ro" ghcr.io/OWNER/linkpatrol --internal-only .
ARG RUST_VERSION=1.95

FROM docker.io/library/rust:${RUST_VERSION}-slim-bookworm AS build
WORKDIR /src
COPY . .
# The caches keep the registry and target folders between builds; the binary leaves the cached
# target folder by a copy, as a cache mount is not part of the image.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --locked --profile dist --bin linkpatrol \
    && cp target/dist/linkpatrol /usr/local/bin/linkpatrol

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /usr/local/bin/linkpatrol /usr/local/bin/linkpatrol
WORKDIR /site
# 65532 is distroless's `nonroot` user.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/linkpatrol"]
CMD ["."]
