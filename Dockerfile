# thinkcap as a container image: docker build -t thinkcap . && docker run --rm thinkcap simulate
# The profiles are embedded, so the runtime image holds the binary alone.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /out/thinkcap ./cmd/thinkcap

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/thinkcap /usr/local/bin/thinkcap
ENTRYPOINT ["/usr/local/bin/thinkcap"]
