// AxiPins: the pins of one AXI4 master port (read and/or write half), as the memory model and
// the protocol checker see them. A half that a port does not have is left unbound (every
// SignalRef of it invalid) and is ignored by both.
#pragma once

#include "signal_ref.h"

namespace st::tb {

struct AxiPins {
  // write address
  SignalRef awid, awaddr, awlen, awsize, awburst, awvalid, awready;
  // write data
  SignalRef wdata, wstrb, wlast, wvalid, wready;
  // write response
  SignalRef bid, bresp, bvalid, bready;
  // read address
  SignalRef arid, araddr, arlen, arsize, arburst, arvalid, arready;
  // read data
  SignalRef rid, rdata, rresp, rlast, rvalid, rready;

  bool hasRead() const { return arvalid.valid(); }
  bool hasWrite() const { return awvalid.valid(); }
};

} // namespace st::tb

/// Binds the read half of `pins` to a Verilated model's ports named <prefix>arid ... e.g.
/// m_axi_gmem_arid, with the given ID, address and data widths in bits.
#define ST_AXI_BIND_READ(pins, model, prefix, idWidth, addrWidth, dataWidth)                       \
  do {                                                                                             \
    (pins).arid = ::st::tb::SignalRef((model).prefix##arid, (idWidth));                            \
    (pins).araddr = ::st::tb::SignalRef((model).prefix##araddr, (addrWidth));                      \
    (pins).arlen = ::st::tb::SignalRef((model).prefix##arlen, 8);                                  \
    (pins).arsize = ::st::tb::SignalRef((model).prefix##arsize, 3);                                \
    (pins).arburst = ::st::tb::SignalRef((model).prefix##arburst, 2);                              \
    (pins).arvalid = ::st::tb::SignalRef((model).prefix##arvalid, 1);                              \
    (pins).arready = ::st::tb::SignalRef((model).prefix##arready, 1);                              \
    (pins).rid = ::st::tb::SignalRef((model).prefix##rid, (idWidth));                              \
    (pins).rdata = ::st::tb::SignalRef((model).prefix##rdata, (dataWidth));                        \
    (pins).rresp = ::st::tb::SignalRef((model).prefix##rresp, 2);                                  \
    (pins).rlast = ::st::tb::SignalRef((model).prefix##rlast, 1);                                  \
    (pins).rvalid = ::st::tb::SignalRef((model).prefix##rvalid, 1);                                \
    (pins).rready = ::st::tb::SignalRef((model).prefix##rready, 1);                                \
  } while (0)

/// Binds the write half of `pins` to a Verilated model's ports named <prefix>awid ...
#define ST_AXI_BIND_WRITE(pins, model, prefix, idWidth, addrWidth, dataWidth)                      \
  do {                                                                                             \
    (pins).awid = ::st::tb::SignalRef((model).prefix##awid, (idWidth));                            \
    (pins).awaddr = ::st::tb::SignalRef((model).prefix##awaddr, (addrWidth));                      \
    (pins).awlen = ::st::tb::SignalRef((model).prefix##awlen, 8);                                  \
    (pins).awsize = ::st::tb::SignalRef((model).prefix##awsize, 3);                                \
    (pins).awburst = ::st::tb::SignalRef((model).prefix##awburst, 2);                              \
    (pins).awvalid = ::st::tb::SignalRef((model).prefix##awvalid, 1);                              \
    (pins).awready = ::st::tb::SignalRef((model).prefix##awready, 1);                              \
    (pins).wdata = ::st::tb::SignalRef((model).prefix##wdata, (dataWidth));                        \
    (pins).wstrb = ::st::tb::SignalRef((model).prefix##wstrb, (dataWidth) / 8);                    \
    (pins).wlast = ::st::tb::SignalRef((model).prefix##wlast, 1);                                  \
    (pins).wvalid = ::st::tb::SignalRef((model).prefix##wvalid, 1);                                \
    (pins).wready = ::st::tb::SignalRef((model).prefix##wready, 1);                                \
    (pins).bid = ::st::tb::SignalRef((model).prefix##bid, (idWidth));                              \
    (pins).bresp = ::st::tb::SignalRef((model).prefix##bresp, 2);                                  \
    (pins).bvalid = ::st::tb::SignalRef((model).prefix##bvalid, 1);                                \
    (pins).bready = ::st::tb::SignalRef((model).prefix##bready, 1);                                \
  } while (0)
