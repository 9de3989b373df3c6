// st_axi_read_dma: AXI4 read master that streams an itensor's iteration space out of memory.
//
// A start handshake latches the loop configuration (see st_addr_gen: base address, per-loop trip
// counts and signed byte strides, loop 0 outermost). The word addresses of the iteration space
// are merged into INCR bursts (st_axi_burst_former: runs of consecutive words, at most
// MaxBurstLen beats, never across a 4 KB page) and issued on the AR channel; the returned words
// leave on data_o in address-sequence order, one per cycle when memory and consumer keep up.
// done_o pulses once the last word has left; error_o (sticky until the next start) tells that
// some beat came back with a response other than OKAY (its data is still delivered).
//
// Flow control: returned data goes to a buffer of MaxOutstanding * MaxBurstLen words
// (st_fifo). A burst is issued only when the buffer has room for all its beats, counting the
// beats of every burst already in flight, so rready is always high and a stalled consumer can
// never overflow the buffer; at most MaxOutstanding bursts are in flight. All bursts use one
// ID (m_axi_arid = 0), so data returns in issue order and needs no reordering.
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
  if (IdWidth < 1) begin : gen_bad_id
    $fatal(1, "st_axi_read_dma: IdWidth must be >= 1");
  end
  if (MaxOutstanding < 1) begin : gen_bad_outstanding
    $fatal(1, "st_axi_read_dma: MaxOutstanding must be >= 1");
  end

  logic busy_q, gen_done_q, error_q, done_q;
  wire start = start_valid_i && !busy_q;

  // ---------------------------------------------------------------------------------------
  // Addresses -> bursts
  // ---------------------------------------------------------------------------------------
  logic gen_valid, gen_ready, gen_last, gen_done;
  logic [AddrWidth-1:0] gen_addr;
  logic gen_start_ready;

  st_addr_gen #(
      .NumLoops (NumLoops),
      .AddrWidth(AddrWidth)
  ) i_addr_gen (
      .clk_i,
      .rst_ni,
      .start_valid_i(start),
      .start_ready_o(gen_start_ready),
      .base_addr_i,
      .trip_counts_i,
      .strides_i,
      .valid_o      (gen_valid),
      .ready_i      (gen_ready),
      .addr_o       (gen_addr),
      .last_o       (gen_last),
      .done_o       (gen_done)
  );

  logic burst_valid, burst_ready, former_idle;
  logic [AddrWidth-1:0] burst_addr;
  logic [7:0] burst_len;

  st_axi_burst_former #(
      .AddrWidth  (AddrWidth),
      .WordBytes  (WordBytes),
      .MaxBurstLen(MaxBurstLen)
  ) i_burst_former (
      .clk_i,
      .rst_ni,
      .valid_i(gen_valid),
      .ready_o(gen_ready),
      .addr_i (gen_addr),
      .last_i (gen_last),
      .valid_o(burst_valid),
      .ready_i(burst_ready),
      .addr_o (burst_addr),
      .len_o  (burst_len),
      .idle_o (former_idle)
  );

  // ---------------------------------------------------------------------------------------
  // AR channel: a burst is loaded into the AR register only with buffer credit for all its
  // beats and fewer than MaxOutstanding bursts in flight.
  // ---------------------------------------------------------------------------------------
  logic ar_valid_q;
  logic [AddrWidth-1:0] ar_addr_q;
  logic [7:0] ar_len_q;
  logic [CreditWidth-1:0] credit_q;  // buffer words neither buffered nor reserved
  logic [OutstandingWidth-1:0] outstanding_q;  // bursts loaded into AR and not yet complete

  wire [CreditWidth-1:0] burst_beats = CreditWidth'(burst_len) + CreditWidth'(1);
  assign burst_ready = (!ar_valid_q || m_axi_arready) && credit_q >= burst_beats &&
      outstanding_q < OutstandingWidth'(MaxOutstanding);
  wire ar_load = burst_valid && burst_ready;

  wire r_beat = m_axi_rvalid && m_axi_rready;
  wire r_burst_done = r_beat && m_axi_rlast;
  wire word_out = valid_o && ready_i;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ar_valid_q <= 1'b0;
      credit_q <= CreditWidth'(BufferDepth);
      outstanding_q <= '0;
    end else begin
      if (ar_load) ar_valid_q <= 1'b1;
      else if (m_axi_arready) ar_valid_q <= 1'b0;
      credit_q <= credit_q - (ar_load ? burst_beats : '0) + CreditWidth'(word_out);
      outstanding_q <= outstanding_q + OutstandingWidth'(ar_load) -
          OutstandingWidth'(r_burst_done);
    end
  end

  always_ff @(posedge clk_i) begin
    if (ar_load) begin
      ar_addr_q <= burst_addr;
      ar_len_q <= burst_len;
    end
  end

  assign m_axi_arid = '0;
  assign m_axi_araddr = ar_addr_q;
  assign m_axi_arlen = ar_len_q;
  assign m_axi_arsize = 3'($clog2(WordBytes));
  assign m_axi_arburst = 2'b01;  // INCR
  assign m_axi_arlock = 1'b0;
  assign m_axi_arcache = 4'b0011;  // normal, non-cacheable, bufferable
  assign m_axi_arprot = 3'b000;
  assign m_axi_arvalid = ar_valid_q;

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

  // ---------------------------------------------------------------------------------------
  // Control: done when the generator has finished and every reserved word has been delivered.
  // ---------------------------------------------------------------------------------------
  wire finished = busy_q && gen_done_q && former_idle && !ar_valid_q &&
      credit_q == CreditWidth'(BufferDepth);

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      gen_done_q <= 1'b0;
      error_q <= 1'b0;
      done_q <= 1'b0;
    end else begin
      done_q <= 1'b0;
      if (start) begin
        busy_q <= 1'b1;
        gen_done_q <= 1'b0;
        error_q <= 1'b0;
      end else begin
        if (gen_done) gen_done_q <= 1'b1;
        if (r_beat && m_axi_rresp != 2'b00) error_q <= 1'b1;
        if (finished) begin
          busy_q <= 1'b0;
          done_q <= 1'b1;
        end
      end
    end
  end

  assign start_ready_o = !busy_q;
  assign done_o = done_q;
  assign error_o = error_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // Credit guarantees room: the buffer never refuses a returned beat.
      if (r_beat) assert (buffer_ready);
      // No data without a burst in flight; every burst used ID 0.
      if (r_beat) assert (outstanding_q != '0 && m_axi_rid == '0);
      // The generator is idle whenever this DMA is.
      if (start) assert (gen_start_ready);
      // Word-aligned addresses only.
      if (gen_valid) assert (gen_addr % AddrWidth'(WordBytes) == '0);
    end
  end
`endif

endmodule

`default_nettype wire
