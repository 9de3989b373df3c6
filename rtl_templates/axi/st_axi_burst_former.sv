// st_axi_burst_former: merges a stream of bus-word addresses into AXI4 INCR bursts.
//
// Consumes one word address per cycle (as st_addr_gen emits them) and grows a run while each
// address is the word right after the previous one. A run is closed, and leaves as one burst
// (start address, AXI len = beats - 1), when
//   - it holds MaxBurstLen beats,
//   - its next word would start a new 4 KB page (AXI4: a burst never crosses 4 KB),
//   - it holds the final address (last_i), or
//   - an address arrives that does not continue it.
// The burst list is therefore the greedy split of the address sequence; concatenating the
// bursts' words gives back the address sequence exactly, in order. One address is accepted
// per cycle and one burst per cycle can leave (single-beat bursts at full rate), through a
// registered output.
//
// Addresses must be multiples of the word size WordBytes (the DMAs assert it).
`default_nettype none

module st_axi_burst_former #(
    /// Address width in bits (12..64).
    parameter int unsigned AddrWidth = 64,
    /// Bytes per bus word (a power of two, 1..128).
    parameter int unsigned WordBytes = 64,
    /// Longest burst in beats (1..256, and at most 4096 / WordBytes).
    parameter int unsigned MaxBurstLen = 64
) (
    input  wire                  clk_i,
    input  wire                  rst_ni,    // synchronous, active low
    // word addresses
    input  wire                  valid_i,
    output logic                 ready_o,
    input  wire  [AddrWidth-1:0] addr_i,
    input  wire                  last_i,    // the final address of the sequence
    // bursts
    output logic                 valid_o,
    input  wire                  ready_i,
    output logic [AddrWidth-1:0] addr_o,    // first word of the burst
    output logic [          7:0] len_o,     // AXI len: beats - 1
    output logic                 idle_o     // no run and no burst held
);

  if (AddrWidth < 12 || AddrWidth > 64) begin : gen_bad_addr_width
    $fatal(1, "st_axi_burst_former: AddrWidth must be in 12..64");
  end
  if (WordBytes < 1 || WordBytes > 128 || (WordBytes & (WordBytes - 1)) != 0) begin : gen_bad_word
    $fatal(1, "st_axi_burst_former: WordBytes must be a power of two in 1..128");
  end
  if (MaxBurstLen < 1 || MaxBurstLen > 256 || MaxBurstLen * WordBytes > 4096) begin : gen_bad_len
    $fatal(1, "st_axi_burst_former: MaxBurstLen must be in 1..256 and span at most 4 KB");
  end

  localparam logic [AddrWidth-1:0] WordStep = AddrWidth'(WordBytes);
  localparam logic [7:0] MaxLen = 8'(MaxBurstLen - 1);

  // The run being grown.
  logic run_valid_q, run_closed_q;
  logic [AddrWidth-1:0] run_addr_q, run_next_q;  // first word; the word that would extend it
  logic [7:0] run_len_q;  // beats - 1

  // The registered output.
  logic out_valid_q;
  logic [AddrWidth-1:0] out_addr_q;
  logic [7:0] out_len_q;

  wire out_free = !out_valid_q || ready_i;
  wire continues = run_valid_q && !run_closed_q && addr_i == run_next_q;
  // The run leaves when it is closed, or an address arrives that does not continue it.
  wire flush = run_valid_q && out_free && (run_closed_q || (valid_i && !continues));
  assign ready_o = !run_valid_q || continues || flush;
  wire accept = valid_i && ready_o;

  // Next word after the accepted one, and whether the run must close after it.
  wire [AddrWidth-1:0] next_word = (continues ? run_next_q : addr_i) + WordStep;
  wire [7:0] len_after = continues ? run_len_q + 8'd1 : 8'd0;
  wire closes = last_i || len_after == MaxLen || next_word[11:0] == 12'd0;

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      run_valid_q <= 1'b0;
      run_closed_q <= 1'b0;
      out_valid_q <= 1'b0;
    end else begin
      if (accept) begin
        run_valid_q <= 1'b1;
        run_closed_q <= closes;
      end else if (flush) begin
        run_valid_q <= 1'b0;
      end
      if (flush) out_valid_q <= 1'b1;
      else if (ready_i) out_valid_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (accept) begin
      if (!continues) run_addr_q <= addr_i;
      run_next_q <= next_word;
      run_len_q <= len_after;
    end
    if (flush) begin
      out_addr_q <= run_addr_q;
      out_len_q <= run_len_q;
    end
  end

  assign valid_o = out_valid_q;
  assign addr_o = out_addr_q;
  assign len_o = out_len_q;
  assign idle_o = !run_valid_q && !out_valid_q;

`ifndef SYNTHESIS
  // A burst stays within one 4 KB page and within MaxBurstLen.
  wire [AddrWidth-1:0] out_end = out_addr_q + AddrWidth'(out_len_q) * WordStep;
  always_ff @(posedge clk_i) begin
    if (rst_ni && out_valid_q) begin
      // Constant when MaxBurstLen is 256 (an 8-bit len cannot exceed it).
      /* verilator lint_off CMPCONST */
      assert (out_len_q <= MaxLen);
      /* verilator lint_on CMPCONST */
      assert ((out_end >> 12) == (out_addr_q >> 12));
    end
  end
`endif

endmodule

`default_nettype wire
