// TWEAK Table Companion: a clamp that holds a Raspberry Pi Camera Module 3 (standard or wide)
// on a round arm (a lamp, microphone or monitor arm; 16-32 mm tube), lens straight down.
// Print flat side down in PETG or PLA, 0.2 mm layers, 30 % infill, no supports.
// Two M2.5x6 screws and nuts hold the camera board; one M4x30 bolt and nut close the clamp.
// Render: openscad -o camera_clamp.stl camera_clamp.scad   (change arm_diameter for your arm)

arm_diameter = 25;      // mm, the arm's outside diameter
wall = 4;               // mm
clamp_width = 18;       // mm, along the arm
gap = 3;                // mm, the slot the bolt closes

// Camera Module 3 board (both lenses): 25 x 24 mm, holes 2.2 mm on a 21 x 12.5 mm pattern
board = [25, 24];
hole_pitch = [21, 12.5];
hole_offset_y = 2;      // from the board's top edge to the first row of holes
hole_d = 2.7;           // M2.5 clearance
lens_clearance = 14;    // mm, square opening for the lens housing
plate_thickness = 3;
standoff = 3;           // mm between plate and board (components on the back)

$fn = 64;

module camera_plate() {
    difference() {
        union() {
            translate([-board[0] / 2 - wall, -board[1] / 2 - wall, 0])
                cube([board[0] + 2 * wall, board[1] + 2 * wall, plate_thickness]);
            for (x = [-hole_pitch[0] / 2, hole_pitch[0] / 2], y = [0, -hole_pitch[1]])
                translate([x, board[1] / 2 - hole_offset_y + y, plate_thickness])
                    cylinder(d = hole_d + 3, h = standoff);
        }
        // the lens looks down through the plate
        translate([-lens_clearance / 2, -lens_clearance / 2 + 2.5, -1])
            cube([lens_clearance, lens_clearance, plate_thickness + 2]);
        for (x = [-hole_pitch[0] / 2, hole_pitch[0] / 2], y = [0, -hole_pitch[1]])
            translate([x, board[1] / 2 - hole_offset_y + y, -1])
                cylinder(d = hole_d, h = plate_thickness + standoff + 2);
        // the ribbon cable leaves by the top edge
        translate([-9, board[1] / 2 - 1, plate_thickness - 1]) cube([18, wall + 2, 10]);
    }
}

module arm_clamp() {
    r = arm_diameter / 2;
    difference() {
        union() {
            rotate([0, 90, 0]) cylinder(r = r + wall, h = clamp_width, center = true);
            // the ears the bolt goes through
            translate([-clamp_width / 2, -(gap / 2 + wall), r])
                cube([clamp_width, gap + 2 * wall, wall + 10]);
        }
        rotate([0, 90, 0]) cylinder(r = r, h = clamp_width + 2, center = true);
        translate([-clamp_width / 2 - 1, -gap / 2, 0]) cube([clamp_width + 2, gap, r + wall + 12]);
        translate([0, 0, r + wall + 4]) rotate([90, 0, 0]) cylinder(d = 4.4, h = gap + 2 * wall + 2, center = true);
    }
}

// the arm runs horizontally above the table; the plate hangs below it, lens down
arm_clamp();
translate([0, 0, -(arm_diameter / 2 + wall + plate_thickness + standoff)])
    rotate([180, 0, 0]) translate([0, 0, -plate_thickness]) camera_plate();
// a neck joining them
translate([-clamp_width / 2, -wall, -(arm_diameter / 2 + wall + standoff + 1)])
    cube([clamp_width, 2 * wall, standoff + 2]);
