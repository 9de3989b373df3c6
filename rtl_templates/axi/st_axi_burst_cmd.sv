// st_axi_burst_cmd: the command side shared by st_axi_read_dma and st_axi_write_dma.
//
// A start handshake latches the loop configuration into st_addr_gen (base address, per-loop trip
// counts and signed byte strides, loop 0 outermost); its word addresses are merged into INCR
// bursts by st_axi_burst_former, and each burst is loaded into the address-channel register
// (AR or AW: ax_*_o, ID 0, INCR, size = WordBytes) when
//   - the register is empty or its burst leaves this cycle,
//   - the data side can take the burst (issue_ok_i, judged from burst_len_o), and
//   - fewer than MaxOutstanding bursts are loaded and not yet complete (burst_done_i).
// burst_load_o pulses with each load (burst_len_o is then the loaded burst's AXI len), so the
// data side can reserve buffer room or queue the length. The DMA is busy from the start until
// the generator has finished, every burst has left the register and the data side reports
// drained_i; then done_o pulses for one cycle. error_o (sticky until the next start) tells that a
// response (resp_valid_i) was not OKAY.
//
// Every word address must be a multiple of WordBytes (asserted).
`default_nettype none

module st_axi_burst_cmd #(
    /// Number of nested loops of the iteration space (1..6).
    parameter int unsigned NumLoops = 3,
    /// AXI address width in bits (12..64).
    parameter int unsigned AddrWidth = 64,
    /// Bytes per bus word (a power of two, 1..128).
    parameter int unsigned WordBytes = 64,
    /// AXI ID width in bits (>= 1); every burst uses ID 0.
    parameter int unsigned IdWidth = 1,
    /// Longest burst in beats (1..256, at most 4 KB of data).
    parameter int unsigned MaxBurstLen = 64,
    /// Bursts loaded and not yet complete, at most (>= 1).
    parameter int unsigned MaxOutstanding = 4
) (
    input  wire                                 clk_i,
    input  wire                                 rst_ni,        // synchronous, active low
    // control of the DMA
    input  wire                                 start_valid_i,
    output logic                                start_ready_o, // high while idle
    input  wire  [               AddrWidth-1:0] base_addr_i,
    input  wire  [             NumLoops*32-1:0] trip_counts_i,
    input  wire  [             NumLoops*64-1:0] strides_i,
    output logic                                done_o,        // one-cycle pulse: all done
    output logic                                error_o,       // a non-OKAY response since start
    // the data side
    input  wire                                 issue_ok_i,    // room for the burst offered
    output logic [                         7:0] burst_len_o,   // AXI len of the burst offered
    output logic                                burst_load_o,  // that burst is loaded now
    input  wire                                 burst_done_i,  // a loaded burst completed
    input  wire                                 resp_valid_i,  // a response (beat) arrives
    input  wire  [                         1:0] resp_i,        // its RRESP / BRESP
    input  wire                                 drained_i,     // the data side holds nothing
    output logic [$clog2(MaxOutstanding+1)-1:0] outstanding_o, // loaded, not yet complete
    // AXI4 address channel (AR or AW)
    output logic [                 IdWidth-1:0] ax_id_o,
    output logic [               AddrWidth-1:0] ax_addr_o,
    output logic [                         7:0] ax_len_o,
    output logic [                         2:0] ax_size_o,
    output logic [                         1:0] ax_burst_o,
    output logic                                ax_lock_o,
    output logic [                         3:0] ax_cache_o,
    output logic [                         2:0] ax_prot_o,
    output logic                                ax_valid_o,
    input  wire                                 ax_ready_i
);

  if (IdWidth < 1) begin : gen_bad_id
    $fatal(1, "st_axi_burst_cmd: IdWidth must be >= 1");
  end
  if (MaxOutstanding < 1) begin : gen_bad_outstanding
    $fatal(1, "st_axi_burst_cmd: MaxOutstanding must be >= 1");
  end

  localparam int unsigned OutstandingWidth = $clog2(MaxOutstanding + 1);

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
  // Address channel: a burst is loaded into the register when the data side has room for it
  // and fewer than MaxOutstanding bursts are in flight.
  // ---------------------------------------------------------------------------------------
  logic ax_valid_q;
  logic [AddrWidth-1:0] ax_addr_q;
  logic [7:0] ax_len_q;
  logic [OutstandingWidth-1:0] outstanding_q;  // bursts loaded and not yet complete

  assign burst_ready = (!ax_valid_q || ax_ready_i) && issue_ok_i &&
      outstanding_q < OutstandingWidth'(MaxOutstanding);
  wire ax_load = burst_valid && burst_ready;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      ax_valid_q <= 1'b0;
      outstanding_q <= '0;
    end else begin
      if (ax_load) ax_valid_q <= 1'b1;
      else if (ax_ready_i) ax_valid_q <= 1'b0;
      outstanding_q <= outstanding_q + OutstandingWidth'(ax_load) -
          OutstandingWidth'(burst_done_i);
    end
  end

  always_ff @(posedge clk_i) begin
    if (ax_load) begin
      ax_addr_q <= burst_addr;
      ax_len_q <= burst_len;
    end
  end

  assign burst_len_o = burst_len;
  assign burst_load_o = ax_load;
  assign outstanding_o = outstanding_q;

  assign ax_id_o = '0;
  assign ax_addr_o = ax_addr_q;
  assign ax_len_o = ax_len_q;
  assign ax_size_o = 3'($clog2(WordBytes));
  assign ax_burst_o = 2'b01;  // INCR
  assign ax_lock_o = 1'b0;
  assign ax_cache_o = 4'b0011;  // normal, non-cacheable, bufferable
  assign ax_prot_o = 3'b000;
  assign ax_valid_o = ax_valid_q;

  // ---------------------------------------------------------------------------------------
  // Control: done when the generator has finished, every burst has left the register and the
  // data side is drained.
  // ---------------------------------------------------------------------------------------
  wire finished = busy_q && gen_done_q && former_idle && !ax_valid_q && drained_i;

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
        if (resp_valid_i && resp_i != 2'b00) error_q <= 1'b1;
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
      // The generator is idle whenever the DMA is.
      if (start) assert (gen_start_ready);
      // Word-aligned addresses only.
      if (gen_valid) assert (gen_addr % AddrWidth'(WordBytes) == '0);
    end
  end
`endif

endmodule

`default_nettype wire
