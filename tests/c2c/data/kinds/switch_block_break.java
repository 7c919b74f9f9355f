import java.util.*;

// a `break` inside a braced case block ends the switch, not the loop around it
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        for (int i = 0; i < n; i++) {
            int k = sc.nextInt();
            switch (k % 3) {
                case 0: {
                    System.out.println("zero " + k);
                    break;
                }
                case 1:
                    System.out.println("one " + k);
                default:
                    System.out.println("default " + k);
            }
        }
        System.out.println("done");
    }
}
