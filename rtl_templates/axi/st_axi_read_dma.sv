// st_axi_read_dma: AXI4 read master that streams an itensor's iteration space out of memory.
//
// A start handshake latches the loop configuration (see st_addr_gen: base address, per-loop trip
// counts and signed byte strides, loop 0 outermost). The word addresses of the iteration space
// are merged into INCR bursts (st_axi_burst_former: runs of consecutive words, at most
// MaxBurstLen beats, never across a 4 KB page) and issued on the AR channel (address generation,
// burst forming, AR and the start/done control are st_axi_burst_cmd, shared with
// st_axi_write_dma); the returned words leave on data_o in address-sequence order, one per
// cycle when memory and consumer keep up.
// done_o pulses once the last word has left; error_o (sticky until the next start) tells that
// some beat came back with a response other than OKAY (its data is still delivered).
//
// Flow control: returned data goes to a buffer of MaxOutstanding * MaxBurstLen words
// (st_fifo). A burst is issued only when the buffer has room for all its beats, counting the
// beats of every burst already in flight, so rready is always high and a stalled consumer can
// never overflow the buffer; at most MaxOutstanding bursts are in flight. All bursts use one
// ID (m_axi_arid = 0), so data returns in issue order and needs no reordering. While hold_i is
// high no new burst is loaded into the AR register (one already there still goes, as AXI
// requires): another master that shares the pseudo-channel goes first (st_channel_claim).
//
// Timing: a burst is issued once its addresses are merged (one per cycle), so the first AR
// goes out up to MaxBurstLen cycles after the start; from then on one word per cycle. Measured
// (tests/rtl/axi_dma): N contiguous words with a fixed memory latency L and no stalls take
// N + MaxBurstLen + L + 6 cycles from start to done. Short bursts (strided patterns) are bound
// by MaxOutstanding bursts per memory round trip.
//
// Every word address must be a multiple of DataWidth / 8 (base and strides word aligned).
`default_nettype none

module st_axi_read_dma #(
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
    /// Read bursts in flight at most (>= 1); the data buffer holds MaxOutstanding bursts.
    parameter int unsigned MaxOutstanding = 4
) (
    input  wire                    clk_i,
    input  wire                    rst_ni,          // synchronous, active low
    // control
    input  wire                    start_valid_i,
    output logic                   start_ready_o,   // high while idle
    input  wire  [  AddrWidth-1:0] base_addr_i,
    input  wire  [NumLoops*32-1:0] trip_counts_i,
    input  wire  [NumLoops*64-1:0] strides_i,
    output logic                   done_o,          // one-cycle pulse: every word delivered
    output logic                   error_o,         // a non-OKAY read response since start
    input  wire                    hold_i,          // while high no new burst is loaded
    // data stream out
    output logic                   valid_o,
    input  wire                    ready_i,
    output logic [  DataWidth-1:0] data_o,
    // AXI4 read address channel
    output logic [    IdWidth-1:0] m_axi_arid,
    output logic [  AddrWidth-1:0] m_axi_araddr,
    output logic [            7:0] m_axi_arlen,
    output logic [            2:0] m_axi_arsize,
    output logic [            1:0] m_axi_arburst,
    output logic                   m_axi_arlock,
    output logic [            3:0] m_axi_arcache,
    output logic [            2:0] m_axi_arprot,
    output logic                   m_axi_arvalid,
    input  wire                    m_axi_arready,
    // AXI4 read data channel
    input  wire  [    IdWidth-1:0] m_axi_rid,
    input  wire  [  DataWidth-1:0] m_axi_rdata,
    input  wire  [            1:0] m_axi_rresp,
    input  wire                    m_axi_rlast,
    input  wire                    m_axi_rvalid,
    output logic                   m_axi_rready
);

  localparam int unsigned WordBytes = DataWidth / 8;
  localparam int unsigned BufferDepth = MaxOutstanding * MaxBurstLen;
  localparam int unsigned CreditWidth = $clog2(BufferDepth + 1);
  localparam int unsigned OutstandingWidth = $clog2(MaxOutstanding + 1);

  if (DataWidth < 8 || DataWidth > 1024 || (DataWidth & (DataWidth - 1)) != 0) begin : gen_bad_dw
    $fatal(1, "st_axi_read_dma: DataWidth must be a power of two in 8..1024");
  end

  // ---------------------------------------------------------------------------------------
  // Addresses -> bursts -> AR (st_axi_burst_cmd): a burst is loaded into the AR register only
  // with buffer credit for all its beats, fewer than MaxOutstanding bursts in flight and no
  // hold.
  // ---------------------------------------------------------------------------------------
  logic [CreditWidth-1:0] credit_q;  // buffer words neither buffered nor reserved
  logic [OutstandingWidth-1:0] outstanding;  // bursts loaded into AR and not yet complete
  /* verilator lint_off UNUSEDSIGNAL */
  // Only its low CreditWidth bits count: a burst never has more beats than the buffer holds.
  logic [7:0] burst_len;
  /* verilator lint_on UNUSEDSIGNAL */
  logic ar_load;

  wire [CreditWidth-1:0] burst_beats = CreditWidth'(burst_len) + CreditWidth'(1);
  wire r_beat = m_axi_rvalid && m_axi_rready;
  wire r_burst_done = r_beat && m_axi_rlast;
  wire word_out = valid_o && ready_i;

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
      .issue_ok_i   (credit_q >= burst_beats && !hold_i),
      .burst_len_o  (burst_len),
      .burst_load_o (ar_load),
      .burst_done_i (r_burst_done),
      .resp_valid_i (r_beat),
      .resp_i       (m_axi_rresp),
      // done when every reserved word has been delivered
      .drained_i    (credit_q == CreditWidth'(BufferDepth)),
      .outstanding_o(outstanding),
      .ax_id_o      (m_axi_arid),
      .ax_addr_o    (m_axi_araddr),
      .ax_len_o     (m_axi_arlen),
      .ax_size_o    (m_axi_arsize),
      .ax_burst_o   (m_axi_arburst),
      .ax_lock_o    (m_axi_arlock),
      .ax_cache_o   (m_axi_arcache),
      .ax_prot_o    (m_axi_arprot),
      .ax_valid_o   (m_axi_arvalid),
      .ax_ready_i   (m_axi_arready)
  );

  always_ff @(posedge clk_i) begin
    if (!rst_ni) credit_q <= CreditWidth'(BufferDepth);
    else credit_q <= credit_q - (ar_load ? burst_beats : '0) + CreditWidth'(word_out);
  end

  // ---------------------------------------------------------------------------------------
  // R channel -> data buffer -> data_o. Credit makes room for every beat in advance.
  // ---------------------------------------------------------------------------------------
  assign m_axi_rready = 1'b1;

  logic buffer_ready;
  /* verilator lint_off UNUSEDSIGNAL */
  // Occupancy outputs of the buffer: the credit counter already accounts for every word.
  logic [$clog2(BufferDepth+1)-1:0] buffer_count, buffer_max_count;
  /* verilator lint_on UNUSEDSIGNAL */

  st_fifo #(
      .Width(DataWidth),
      .Depth(BufferDepth)
  ) i_buffer (
      .clk_i,
      .rst_ni,
      .valid_i    (r_beat),
      .ready_o    (buffer_ready),
      .data_i     (m_axi_rdata),
      .valid_o,
      .ready_i,
      .data_o,
      .count_o    (buffer_count),
      .max_count_o(buffer_max_count),
      .limit_i    ('0)
  );

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // Credit guarantees room: the buffer never refuses a returned beat.
      if (r_beat) assert (buffer_ready);
      // No data without a burst in flight; every burst used ID 0.
      if (r_beat) assert (outstanding != '0 && m_axi_rid == '0);
    end
  end
`endif

endmodule

`default_nettype wire
