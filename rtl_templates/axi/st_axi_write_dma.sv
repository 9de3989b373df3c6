// st_axi_write_dma: AXI4 write master that stores a data stream along an itensor's iteration
// space.
//
// A start handshake latches the loop configuration (see st_addr_gen: base address, per-loop trip
// counts and signed byte strides, loop 0 outermost). The i-th word accepted on data_i is written
// to the i-th address of the iteration space. Word addresses are merged into INCR bursts
// (st_axi_burst_former: runs of consecutive words, at most MaxBurstLen beats, never across a
// 4 KB page); each burst is issued on AW and its beats follow on W in the same order, WSTRB all
// ones, WLAST on the last beat. At most MaxOutstanding bursts are issued and not yet answered
// on B; bready is always high. done_o pulses once every B response is back; error_o (sticky
// until the next start) tells that some response was not OKAY. Exactly as many words as the
// iteration space has points are accepted; data_i is not accepted while no burst is open.
//
// AW may run ahead of its W data (up to MaxOutstanding bursts); W never runs ahead of AW, and
// W leaves through a register slice (st_skid_buffer), AW from a register. Address generation,
// burst forming, AW and the start/done control are st_axi_burst_cmd, shared with
// st_axi_read_dma.
//
// Timing: as for st_axi_read_dma, the first AW goes out once its addresses are merged (up to
// MaxBurstLen cycles after the start), then one word per cycle; N contiguous words with a fixed
// response latency L take N + MaxBurstLen + L + 6 cycles from start to done (measured).
//
// Every word address must be a multiple of DataWidth / 8 (base and strides word aligned).
`default_nettype none

module st_axi_write_dma #(
    /// Number of nested loops of the iteration space (1..6).
    parameter int unsigned NumLoops = 3,
    /// AXI address width in bits (12..64).
    parameter int unsigned AddrWidth = 64,
    /// AXI data width in bits (a power of two, 8..1024); one address per DataWidth-bit word.
    parameter int unsigned DataWidth = 512,
    /// AXI ID width in bits (>= 1); every burst uses ID 0.
    parameter int unsigned IdWidth = 1,
    /// Longest burst in beats (1..256, at most 4 KB of data).
    parameter int unsigned MaxBurstLen = 64,
    /// Write bursts issued and not yet answered on B, at most (>= 1).
    parameter int unsigned MaxOutstanding = 4
) (
    input  wire                     clk_i,
    input  wire                     rst_ni,          // synchronous, active low
    // control
    input  wire                     start_valid_i,
    output logic                    start_ready_o,   // high while idle
    input  wire  [   AddrWidth-1:0] base_addr_i,
    input  wire  [ NumLoops*32-1:0] trip_counts_i,
    input  wire  [ NumLoops*64-1:0] strides_i,
    output logic                    done_o,          // one-cycle pulse: every write answered
    output logic                    error_o,         // a non-OKAY write response since start
    // data stream in
    input  wire                     valid_i,
    output logic                    ready_o,
    input  wire  [   DataWidth-1:0] data_i,
    // AXI4 write address channel
    output logic [     IdWidth-1:0] m_axi_awid,
    output logic [   AddrWidth-1:0] m_axi_awaddr,
    output logic [             7:0] m_axi_awlen,
    output logic [             2:0] m_axi_awsize,
    output logic [             1:0] m_axi_awburst,
    output logic                    m_axi_awlock,
    output logic [             3:0] m_axi_awcache,
    output logic [             2:0] m_axi_awprot,
    output logic                    m_axi_awvalid,
    input  wire                     m_axi_awready,
    // AXI4 write data channel
    output logic [   DataWidth-1:0] m_axi_wdata,
    output logic [DataWidth/8-1:0]  m_axi_wstrb,
    output logic                    m_axi_wlast,
    output logic                    m_axi_wvalid,
    input  wire                     m_axi_wready,
    // AXI4 write response channel
    input  wire  [     IdWidth-1:0] m_axi_bid,
    input  wire  [             1:0] m_axi_bresp,
    input  wire                     m_axi_bvalid,
    output logic                    m_axi_bready
);

  localparam int unsigned WordBytes = DataWidth / 8;
  localparam int unsigned OutstandingWidth = $clog2(MaxOutstanding + 1);

  if (DataWidth < 8 || DataWidth > 1024 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_dw
    $fatal(1, "st_axi_write_dma: DataWidth must be a power of two in 8..1024");
  end

  // ---------------------------------------------------------------------------------------
  // Addresses -> bursts -> AW (st_axi_burst_cmd): a burst is loaded into the AW register, and
  // its length queued for W, while fewer than MaxOutstanding bursts wait for their B response.
  // ---------------------------------------------------------------------------------------
  logic [OutstandingWidth-1:0] outstanding;  // bursts loaded into AW, B not yet back
  logic [7:0] burst_len;
  logic aw_load, lens_ready;
  wire b_beat = m_axi_bvalid && m_axi_bready;

  st_axi_burst_cmd #(
      .NumLoops      (NumLoops),
      .AddrWidth     (AddrWidth),
      .WordBytes     (WordBytes),
      .IdWidth       (IdWidth),
      .MaxBurstLen   (MaxBurstLen),
      .MaxOutstanding(MaxOutstanding)
  ) i_cmd (
      .clk_i,
      .rst_ni,
      .start_valid_i,
      .start_ready_o,
      .base_addr_i,
      .trip_counts_i,
      .strides_i,
      .done_o,
      .error_o,
      .issue_ok_i   (lens_ready),
      .burst_len_o  (burst_len),
      .burst_load_o (aw_load),
      .burst_done_i (b_beat),
      .resp_valid_i (b_beat),
      .resp_i       (m_axi_bresp),
      // done when every response is back (a response follows the last W beat of its burst)
      .drained_i    (outstanding == '0),
      .outstanding_o(outstanding),
      .ax_id_o      (m_axi_awid),
      .ax_addr_o    (m_axi_awaddr),
      .ax_len_o     (m_axi_awlen),
      .ax_size_o    (m_axi_awsize),
      .ax_burst_o   (m_axi_awburst),
      .ax_lock_o    (m_axi_awlock),
      .ax_cache_o   (m_axi_awcache),
      .ax_prot_o    (m_axi_awprot),
      .ax_valid_o   (m_axi_awvalid),
      .ax_ready_i   (m_axi_awready)
  );

  // ---------------------------------------------------------------------------------------
  // W channel: the lengths of issued bursts, in order, cut data_i into bursts with WLAST.
  // ---------------------------------------------------------------------------------------
  logic lens_valid, lens_pop;
  logic [7:0] lens_len;
  /* verilator lint_off UNUSEDSIGNAL */
  // Occupancy outputs of the length queue: the outstanding count already bounds it.
  logic [$clog2(MaxOutstanding+1)-1:0] lens_count, lens_max_count;
  /* verilator lint_on UNUSEDSIGNAL */

  st_fifo #(
      .Width(8),
      .Depth(MaxOutstanding)
  ) i_lens (
      .clk_i,
      .rst_ni,
      .valid_i    (aw_load),
      .ready_o    (lens_ready),
      .data_i     (burst_len),
      .valid_o    (lens_valid),
      .ready_i    (lens_pop),
      .data_o     (lens_len),
      .count_o    (lens_count),
      .max_count_o(lens_max_count),
      .limit_i    ('0)
  );

  logic [7:0] beat_q;  // beats of the current burst already sent
  logic w_slice_ready;
  wire w_last = beat_q == lens_len;
  wire w_push = valid_i && ready_o;
  assign ready_o = lens_valid && w_slice_ready;
  assign lens_pop = w_push && w_last;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      beat_q <= '0;
    end else if (w_push) begin
      beat_q <= w_last ? 8'd0 : beat_q + 8'd1;
    end
  end

  st_skid_buffer #(
      .Width(DataWidth + 1)
  ) i_w_slice (
      .clk_i,
      .rst_ni,
      .valid_i(valid_i && lens_valid),
      .ready_o(w_slice_ready),
      .data_i ({w_last, data_i}),
      .valid_o(m_axi_wvalid),
      .ready_i(m_axi_wready),
      .data_o ({m_axi_wlast, m_axi_wdata})
  );

  assign m_axi_wstrb = '1;

  // B channel: responses only count down outstanding bursts and flag errors (st_axi_burst_cmd).
  assign m_axi_bready = 1'b1;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // No response without a burst waiting for one; every burst used ID 0.
      if (b_beat) assert (outstanding != '0 && m_axi_bid == '0);
      // The length queue never overflows: the outstanding count bounds it.
      if (aw_load) assert (lens_ready);
    end
  end
`endif

endmodule

`default_nettype wire
