// st_width_converter: packs narrow tokens into wide ones, or splits wide tokens into narrow ones.
//
// One of InWidth, OutWidth must be an integer multiple of the other; Ratio = wide / narrow.
//
// Upsizing (OutWidth = Ratio * InWidth): Ratio input tokens make one output token, the first
//   input token in the least significant bits. The first Ratio-1 tokens shift into an
//   accumulator; the last one is written, together with the accumulator, into the output
//   register. ready_o depends on registers only (no combinational path from ready_i): a new
//   word's last token waits for the output register to be empty. Latency one cycle.
// Downsizing (InWidth = Ratio * OutWidth): one input token is held in a register and leaves as
//   Ratio output tokens, least significant part first (data_o is a Ratio:1 multiplexer of that
//   register). The next input token is taken in the cycle the last part leaves, so ready_o
//   depends combinationally on ready_i. Latency one cycle.
// Equal widths: a wire (valid, ready and data pass straight through; no register, no latency).
//
// Sustains one token per cycle on the narrow side (the wide side then carries one token every
// Ratio cycles) while the producer has tokens and the consumer is ready.
`default_nettype none

module st_width_converter #(
    /// Input token width in bits (>= 1).
    parameter int unsigned InWidth = 8,
    /// Output token width in bits (>= 1); a multiple or a divisor of InWidth.
    parameter int unsigned OutWidth = 32
) (
    input  wire                 clk_i,
    input  wire                 rst_ni,   // synchronous, active low
    // upstream
    input  wire                 valid_i,
    output logic                ready_o,
    input  wire  [InWidth-1:0]  data_i,
    // downstream
    output logic                valid_o,
    input  wire                 ready_i,
    output logic [OutWidth-1:0] data_o
);

  if (InWidth < 1 || OutWidth < 1) begin : gen_bad_width
    $fatal(1, "st_width_converter: InWidth and OutWidth must be >= 1");
  end
  if ((OutWidth % InWidth != 0) && (InWidth % OutWidth != 0)) begin : gen_bad_ratio
    $fatal(1, "st_width_converter: one of InWidth, OutWidth must be a multiple of the other");
  end

  if (OutWidth > InWidth) begin : gen_upsize
    localparam int unsigned Ratio = OutWidth / InWidth;
    localparam int unsigned CountWidth = $clog2(Ratio);

    // Input tokens of the current word received so far (0 .. Ratio-1).
    logic [CountWidth-1:0] count_q;
    // The first Ratio-1 tokens of the word; the oldest ends in the least significant bits.
    logic [(Ratio-1)*InWidth-1:0] acc_q;
    logic out_valid_q;
    logic [OutWidth-1:0] out_q;

    wire last_token = (count_q == CountWidth'(Ratio - 1));
    wire in_fire = valid_i && ready_o;

    assign ready_o = !last_token || !out_valid_q;
    assign valid_o = out_valid_q;
    assign data_o  = out_q;

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        count_q     <= '0;
        out_valid_q <= 1'b0;
      end else begin
        if (ready_i) out_valid_q <= 1'b0;
        if (in_fire) begin
          count_q <= last_token ? '0 : count_q + 1'b1;
          if (last_token) out_valid_q <= 1'b1;
        end
      end
    end

    // Payload registers are not reset.
    if (Ratio > 2) begin : gen_shift_acc
      always_ff @(posedge clk_i) begin
        if (in_fire && !last_token) acc_q <= {data_i, acc_q[(Ratio-1)*InWidth-1:InWidth]};
      end
    end else begin : gen_single_acc
      always_ff @(posedge clk_i) begin
        if (in_fire && !last_token) acc_q <= data_i;
      end
    end
    always_ff @(posedge clk_i) begin
      if (in_fire && last_token) out_q <= {data_i, acc_q};
    end

`ifndef SYNTHESIS
    // A finished word never overwrites one the consumer has not taken.
    always_ff @(posedge clk_i) begin
      if (rst_ni && in_fire && last_token) assert (!out_valid_q);
    end
`endif

  end else if (InWidth > OutWidth) begin : gen_downsize
    localparam int unsigned Ratio = InWidth / OutWidth;
    localparam int unsigned CountWidth = $clog2(Ratio);

    logic word_valid_q;
    logic [InWidth-1:0] word_q;
    // The part of word_q on data_o (0 .. Ratio-1).
    logic [CountWidth-1:0] part_q;

    wire last_part = (part_q == CountWidth'(Ratio - 1));
    wire out_fire = word_valid_q && ready_i;
    wire in_fire = valid_i && ready_o;

    assign ready_o = !word_valid_q || (last_part && ready_i);
    assign valid_o = word_valid_q;
    assign data_o  = word_q[part_q*OutWidth+:OutWidth];

    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        word_valid_q <= 1'b0;
        part_q       <= '0;
      end else begin
        if (out_fire) begin
          part_q <= last_part ? '0 : part_q + 1'b1;
          if (last_part) word_valid_q <= 1'b0;
        end
        if (in_fire) word_valid_q <= 1'b1;
      end
    end

    // Payload register is not reset.
    always_ff @(posedge clk_i) begin
      if (in_fire) word_q <= data_i;
    end

`ifndef SYNTHESIS
    // A new word is taken only when the held one is gone or its last part leaves now.
    always_ff @(posedge clk_i) begin
      if (rst_ni && in_fire && word_valid_q) assert (out_fire && last_part);
    end
`endif

  end else begin : gen_passthrough
    assign valid_o = valid_i;
    assign ready_o = ready_i;
    assign data_o  = data_i;
    // Clock and reset are not needed by a wire (the name matches Verilator's unused pattern).
    wire unused_clk_rst = clk_i ^ rst_ni;
  end

endmodule

`default_nettype wire
