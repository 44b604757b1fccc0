// A module script of the probe's package: the frame's origin is opaque, so
// this is a cross-origin module load (the server's
// Access-Control-Allow-Origin: *). probe.js reports whether it ran.
window.selftestProbeModule = { ran: true, url: import.meta.url };
