// st_addr_gen: multi-dimensional address generator, the iteration space of an itensor.
//
// Up to six nested loops, loop 0 outermost. A start handshake (start_valid_i && start_ready_o)
// latches the runtime configuration: a base address, a trip count per loop and a signed byte
// stride per loop. The generator then emits, one per cycle when ready_i allows, the address of
// every point of the iteration space in loop order:
//   for i0 in 0..trip[0]-1: ... for iN in 0..trip[N-1]-1:
//     addr = base + i0 * stride[0] + ... + iN * stride[N-1]        (modulo 2^AddrWidth)
// A loop that the itensor's iteration map does not use has stride 0: its data is emitted again on
// each of its trips. last_o marks the final address; done_o pulses for one cycle after it was
// accepted (or one cycle after the start when a trip count is 0: the space is empty).
//
// Configuration layout (flat vectors, loop i at its own slice):
//   trip_counts_i[32*i +: 32]  trip count of loop i (unsigned; 0 = empty space)
//   strides_i[64*i +: 64]      byte stride of loop i (two's complement)
//
// No multipliers: each loop keeps a pointer, the address at which its current iteration starts.
// When loop k steps, its pointer advances by its stride and every inner pointer restarts from
// there. The per-loop sums are computed in parallel, so one address per cycle at any depth.
`default_nettype none

module st_addr_gen #(
    /// Number of nested loops (1..6).
    parameter int unsigned NumLoops = 3,
    /// Address width in bits (12..64).
    parameter int unsigned AddrWidth = 64
) (
    input  wire                     clk_i,
    input  wire                     rst_ni,          // synchronous, active low
    // start handshake with the configuration it latches
    input  wire                     start_valid_i,
    output logic                    start_ready_o,   // high while idle
    input  wire  [   AddrWidth-1:0] base_addr_i,
    input  wire  [ NumLoops*32-1:0] trip_counts_i,
    input  wire  [ NumLoops*64-1:0] strides_i,
    // address stream
    output logic                    valid_o,
    input  wire                     ready_i,
    output logic [   AddrWidth-1:0] addr_o,
    output logic                    last_o,          // the final address of the space
    output logic                    done_o           // one-cycle pulse when the space is done
);

  if (NumLoops < 1 || NumLoops > 6) begin : gen_bad_loops
    $fatal(1, "st_addr_gen: NumLoops must be in 1..6");
  end
  if (AddrWidth < 12 || AddrWidth > 64) begin : gen_bad_addr_width
    $fatal(1, "st_addr_gen: AddrWidth must be in 12..64");
  end

  logic busy_q, done_q;
  wire start = start_valid_i && !busy_q;
  wire step = valid_o && ready_i;

  // Per-loop state and the signals that combine loops.
  logic [NumLoops-1:0] at_last;         // loop i is at its last iteration
  logic [NumLoops-1:0] inner_all_last;  // every loop inside loop i is at its last iteration
  logic [NumLoops-1:0] advance;         // loop i is the one that steps on `step`
  logic [AddrWidth-1:0] ptr[NumLoops];
  logic [AddrWidth-1:0] next_ptr[NumLoops];  // ptr[i] + stride[i]
  logic [AddrWidth-1:0] restart[NumLoops];   // new pointer of loop i when a loop <= i steps
  logic trip_zero[NumLoops];

  for (genvar i = 0; i < NumLoops; i++) begin : gen_loop
    logic [31:0] count_q, trip_m1_q;
    logic [AddrWidth-1:0] stride_q, ptr_q;

    assign at_last[i] = count_q == trip_m1_q;
    assign advance[i] = inner_all_last[i] && !at_last[i];
    assign ptr[i] = ptr_q;
    assign next_ptr[i] = ptr_q + stride_q;
    assign trip_zero[i] = trip_counts_i[32*i+:32] == 32'd0;

    // Control state: the loop counter.
    always_ff @(posedge clk_i) begin
      if (!rst_ni) begin
        count_q <= '0;
      end else if (start) begin
        count_q <= '0;
      end else if (step && inner_all_last[i]) begin
        count_q <= at_last[i] ? '0 : count_q + 32'd1;
      end
    end

    // Configuration and pointer registers (payload, loaded at start).
    always_ff @(posedge clk_i) begin
      if (start) begin
        trip_m1_q <= trip_counts_i[32*i+:32] - 32'd1;
        stride_q <= strides_i[64*i+:AddrWidth];
        ptr_q <= base_addr_i;
      end else if (step && inner_all_last[i] && !last_o) begin
        ptr_q <= restart[i];
      end
    end
  end

  // Loop i sees all inner loops at their last iteration: it steps (or wraps) on `step`.
  always_comb begin
    logic all_last;
    all_last = 1'b1;
    for (int i = NumLoops - 1; i >= 0; i--) begin
      inner_all_last[i] = all_last;
      all_last = all_last && at_last[i];
    end
  end

  // At most one loop advances, so the new pointer of loop i is the OR over the loops at or
  // outside it of their next pointer, masked by `advance`.
  always_comb begin
    logic [AddrWidth-1:0] acc;
    acc = '0;
    for (int i = 0; i < NumLoops; i++) begin
      acc = acc | (advance[i] ? next_ptr[i] : '0);
      restart[i] = acc;
    end
  end

  logic any_trip_zero;
  always_comb begin
    any_trip_zero = 1'b0;
    for (int i = 0; i < NumLoops; i++) any_trip_zero = any_trip_zero | trip_zero[i];
  end

  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
      done_q <= 1'b0;
    end else begin
      done_q <= 1'b0;
      if (start) begin
        busy_q <= !any_trip_zero;
        done_q <= any_trip_zero;
      end else if (step && last_o) begin
        busy_q <= 1'b0;
        done_q <= 1'b1;
      end
    end
  end

  assign start_ready_o = !busy_q;
  assign valid_o = busy_q;
  assign addr_o = ptr[NumLoops-1];
  assign last_o = inner_all_last[0] && at_last[0];
  assign done_o = done_q;

`ifndef SYNTHESIS
  // Exactly one loop steps on every address but the last.
  always_ff @(posedge clk_i) begin
    if (rst_ni && step && !last_o) assert ($onehot(advance));
  end
`endif

endmodule

`default_nettype wire
